"""Distil a game's network-guided search into its policy network.

Self-play trains a network on the visit counts of 100-200-simulation searches;
the game's ``best`` preset plays with thousands to tens of thousands of
simulations a move.  This script records that search's own root visit
distributions (the ``best_az`` settings of the game, on one thread) and
fine-tunes a network on them (``ttt_engine.alphazero.fine_tune``):

    # positions: games of the preset against itself (0.1 s a move, one thread),
    # each from a random opening of 2-10 plies; one file per game, resumable
    python examples/distill.py positions --game uttt --out distill-data --first 0 --games 600
    # fit: the shipped network fine-tuned on them (needs the [nn] extra)
    python examples/distill.py fit --game uttt --data distill-data --out uttt-distilled.npz

A third way distils another network's policy (say a slower, convolutional one)
into a network of the shipped shape, on positions of games the teacher plays:

    python examples/distill.py teacher --game connect4 --teacher conv.npz \
        --out connect4-student.npz --games 18000 --epochs 12 --seed 11

(a share of the games uniformly random, the rest sampled from the teacher's
policy with some random moves; the policy targets are the teacher's, the value
targets the student's own, so its value head stays as it was trained.)

Every game is played from its own seed (its number), and in the first 16
searched plies a quarter of the moves are drawn from the visit distribution
instead of the most visited, so the games spread.  A time budget makes the
searches depend on the machine: two runs give similar, not identical, data.
The fit holds out every game whose file name hashes to 0 modulo 10 and returns
the epoch with the lowest held-out policy cross-entropy.  docs/alphazero.md
("Distilling the preset's search") has the run that made the shipped network.
"""
import argparse
import glob
import os
import sys
import zlib

import numpy as np

from ttt_engine import _util, games
from ttt_engine.agents import shipped_network

SAMPLED_PLIES = 16          # plies in which a quarter of the moves are sampled
SAMPLED_SHARE = 0.25


def preset_agent(game, seconds, seed, network=None):
    """The game's network-guided preset (its ``best`` engine given a network:
    Connect Four's ``best`` on a time budget is otherwise its value-network
    alpha-beta, which keeps no visit counts) on one thread, with ``network``
    in the shipped network's place (the shipped one if None)."""
    g = games.get(game)
    if g.best_az is None:
        raise ValueError(f"{g.title} has no network-guided preset (best_az) to distil")
    return g.make_agent("best", time=seconds, seed=seed, threads=1,
                        network=shipped_network(game) if network is None else network)


def play_game(number, seconds, network=None, game="uttt"):
    """One game of the preset against itself from a random opening: the rows
    (observation, legal mask, root visit distribution, value for the side to
    move) of every searched position."""
    rng = np.random.default_rng(number)
    board = games.get(game).new_board()
    for _ in range(int(rng.integers(2, 11))):
        moves = board.legal_moves
        board.push(moves[int(rng.integers(len(moves)))])
        if board.is_terminal():
            board.pop()
            break
    agent = preset_agent(game, seconds, number, network)
    searched = []
    ply = 0
    while not board.is_terminal():
        move = agent.select_move(board)
        pi = np.zeros(board.num_actions, np.float32)
        for child in agent.last_stats["children"]:
            pi[child["action"]] = child["visits"]
        if pi.sum() > 0:
            pi /= pi.sum()
            searched.append((board.observation().copy(), np.asarray(board.action_mask(), bool),
                             pi, board.to_move))
            if ply < SAMPLED_PLIES and rng.random() < SAMPLED_SHARE:
                move = board.action_to_move(int(rng.choice(board.num_actions, p=pi)))
        board.push(move)
        ply += 1
    winner = board.winner
    z = [0.0 if winner not in board.PLAYERS else (1.0 if winner == who else -1.0)
         for *_, who in searched]
    return (np.stack([r[0] for r in searched]), np.stack([r[1] for r in searched]),
            np.stack([r[2] for r in searched]), np.array(z, np.float32)), winner


def positions(args):
    os.makedirs(args.out, exist_ok=True)
    from tqdm.auto import tqdm
    todo = [k for k in range(args.first, args.first + args.games)
            if not os.path.exists(os.path.join(args.out, f"g{k:06d}.npz"))]
    for k in tqdm(todo, unit="game", desc="positions"):
        (obs, masks, pi, z), _ = play_game(k, args.time, args.network, args.game)
        path = os.path.join(args.out, f"g{k:06d}.npz")
        _util.atomic_write(path, lambda f: np.savez(f, obs=obs, mask=masks, pi=pi, z=z))
    n = len(glob.glob(os.path.join(args.out, "g*.npz")))
    print(f"{n} games in {args.out}")


def load(files):
    parts = [np.load(f) for f in files]
    return tuple(np.concatenate([p[k] for p in parts]) for k in ("obs", "mask", "pi", "z"))


def fit(args):
    from ttt_engine import alphazero
    from ttt_engine.network import Network
    files = sorted(glob.glob(os.path.join(args.data, "g*.npz")))
    if not files:
        raise SystemExit(f"error: no position files (g*.npz) in {args.data}")
    held = [f for f in files if zlib.crc32(os.path.basename(f).encode()) % 10 == 0]
    train = [f for f in files if f not in set(held)]
    if not train or not held:
        raise SystemExit(f"error: {len(files)} games are too few to hold some out")
    base = Network.load(args.base or shipped_network(args.game))
    net, history = alphazero.fine_tune(base, load(train), load(held), epochs=args.epochs,
                                       learning_rate=args.lr, value_weight=args.value_weight)
    for h in history:
        print("epoch {epoch}: held-out policy cross-entropy {policy_ce:.4f}, KL {policy_kl:.4f}, "
              "top-1 {top1:.3f}, value MSE {value_mse:.3f}".format(**h))
    net.save(args.out)
    print(f"{args.out}: {len(train)} games trained on, {len(held)} held out")


RANDOM_GAMES = 0.4          # teacher data: the share of uniformly random games
RANDOM_MOVES = 0.15         # and of random moves in the teacher's games


def _softmax(logits, masks):
    z = np.where(masks, np.asarray(logits, np.float64), -np.inf)
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def teacher_games(teacher, game, count, seed):
    """Observations and masks of every position of ``count`` games: a share
    uniformly random, the others sampled from ``teacher``'s policy (with some
    uniformly random moves), all from one ``seed``."""
    rng = np.random.default_rng(seed)
    g = games.get(game)
    obs, masks = [], []
    for _ in range(count):
        b = g.new_board()
        random_game = rng.random() < RANDOM_GAMES
        while not b.is_terminal():
            o, m = b.observation(), b.action_mask()
            obs.append(o)
            masks.append(m)
            if random_game:
                move = b.legal_moves[rng.integers(len(b.legal_moves))]
            else:
                logits, _ = teacher(o[None], m[None])
                p = _softmax(logits, m[None])[0]
                if rng.random() < RANDOM_MOVES:
                    move = int(rng.choice(np.flatnonzero(m)))
                else:
                    move = int(rng.choice(len(p), p=p))
            b.push(move)
    return np.stack(obs), np.stack(masks)


def teacher(args):
    from ttt_engine import alphazero, yardstick
    from ttt_engine.network import Network
    teacher_net = Network.load(args.teacher, args.game)
    student = Network.load(args.base or shipped_network(args.game), args.game)
    obs, masks = teacher_games(teacher_net, args.game, args.games, args.seed)
    pi, z = [], []
    for i in range(0, len(obs), 4096):
        logits, _ = teacher_net(obs[i:i + 4096], masks[i:i + 4096])
        pi.append(_softmax(logits, masks[i:i + 4096]).astype(np.float32))
        _, v = student(obs[i:i + 4096], masks[i:i + 4096])
        z.append(np.asarray(v, np.float32).reshape(-1))
    pi, z = np.concatenate(pi), np.concatenate(z)
    k = len(obs) * 9 // 10                  # the last tenth (the last games) held out
    print(f"{len(obs):,} positions of {args.games:,} games")
    net, history = alphazero.fine_tune(
        student, (obs[:k], masks[:k], pi[:k], z[:k]), (obs[k:], masks[k:], pi[k:], z[k:]),
        epochs=args.epochs, learning_rate=args.lr, value_weight=args.value_weight,
        progress=False)
    for h in history:
        print("epoch {epoch}: held-out policy cross-entropy {policy_ce:.4f}, KL {policy_kl:.4f}, "
              "top-1 {top1:.3f}, value MSE {value_mse:.3f}".format(**h))
    net.save(args.out)
    if yardstick.has_suite(args.game):
        from ttt_engine.alphazero.evaluation import policy_yardstick
        for name, n in (("before", student), ("after", net)):
            r = policy_yardstick(n)
            print(f"the policy alone {name}: keeps the value {r['policy_keeps']:.1%}, "
                  f"optimal {r['policy_optimal']:.1%}")
    print(f"{args.out}: written")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    a = sub.add_parser("positions", help="record the preset's searches")
    a.add_argument("--game", default="uttt", choices=sorted(games.GAMES),
                   help="the game (default uttt)")
    a.add_argument("--out", required=True, help="folder of position files (one per game)")
    a.add_argument("--first", type=int, default=0, help="number (seed) of the first game")
    a.add_argument("--games", type=int, default=100)
    a.add_argument("--time", type=float, default=0.1, help="seconds per move (default 0.1)")
    a.add_argument("--network", default=None, help="network file (default: the shipped one)")
    b = sub.add_parser("fit", help="fine-tune a network on recorded positions")
    b.add_argument("--game", default="uttt", choices=sorted(games.GAMES),
                   help="the game whose shipped network is the default base (default uttt)")
    b.add_argument("--data", required=True)
    b.add_argument("--out", required=True, help="the new network file")
    b.add_argument("--base", default=None, help="network to start from (default: shipped)")
    b.add_argument("--epochs", type=int, default=8)
    b.add_argument("--lr", type=float, default=1e-3)
    b.add_argument("--value-weight", type=float, default=0.25)
    t = sub.add_parser("teacher", help="distil another network's policy into one of the "
                                       "shipped shape")
    t.add_argument("--game", default="connect4", choices=sorted(games.GAMES))
    t.add_argument("--teacher", required=True, help="the teacher network file")
    t.add_argument("--out", required=True, help="the new network file")
    t.add_argument("--base", default=None, help="network to start from (default: shipped)")
    t.add_argument("--games", type=int, default=18000)
    t.add_argument("--epochs", type=int, default=12)
    t.add_argument("--lr", type=float, default=1e-3)
    t.add_argument("--value-weight", type=float, default=1.0)
    t.add_argument("--seed", type=int, default=11)
    args = p.parse_args(argv)
    try:
        if args.command == "teacher":
            _util.check_int("games", args.games, min=10)
            _util.check_int("epochs", args.epochs, min=1)
            teacher(args)
        elif args.command == "positions":
            _util.check_int("games", args.games, min=1)
            _util.check_int("first", args.first, min=0)
            _util.check_real("time", args.time, low=0, low_open=True)
            preset_agent(args.game, args.time, 0)     # a game without a preset: one line
            positions(args)
        else:
            fit(args)
    except (ValueError, OSError) as e:
        raise SystemExit(f"error: {e}")
    except KeyboardInterrupt:
        sys.exit(130)


if __name__ == "__main__":
    main()
