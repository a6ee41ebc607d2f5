"""``ttt-engine train``, Tic-Tac-Toe's own command: train a Tic-Tac-Toe
Q-learning model with a progress bar, save it and print a summary table (exact
quality and sampled games)."""
from __future__ import annotations

import time

from ttt_engine.cli import _files
from ttt_engine.cli import _options as O
from ttt_engine._modelfile import model_path
from ttt_engine.cli._engines import CACHE_HELP, trained_side
from ttt_engine.cli._errors import EXIT_OK, EXIT_USAGE, CLIError
from ttt_engine.cli._report import pct, table
from ttt_engine.cli.console import Console

__all__ = ["COMMAND", "add_parser", "run", "configure"]

COMMAND = O.Command(
    name="train",
    help="train a Tic-Tac-Toe Q-learning model",
    description="""\
Train a Tic-Tac-Toe Q-learning model with a progress bar, save it and print a summary
table (and its greedy results against a random player).""",
    epilog=(CACHE_HELP, O.examples(
        "train --episodes 10000000 --plot curves.png",
        "train --mode random --side X --episodes 2000000 --out x.npz --seed 1")))

#: train() keyword for each training option of the command line
TRAIN_OPTIONS = ("episodes", "alpha", "gamma", "epsilon", "epsilon_decay", "epsilon_min",
                 "side", "mode", "curriculum_fraction", "curriculum_epsilon", "alpha_decay",
                 "alpha_min", "seed")


def _exact_rows(agent, side):
    """Exact quality from the oracle: optimal-move share, exact W/D/L against a
    uniformly random player, worst case against any player."""
    from ttt_engine import exact_vs_random, optimality, worst_case
    o = optimality(agent)
    rows = [["optimal moves (all positions, exact)",
             f"{o.optimal:,}/{o.positions:,} = {pct(o.optimal, o.positions)}"]]
    for sd in (("X", "O") if side is None else (side,)):
        e = exact_vs_random(agent, side=sd)
        rows.append([f"as {sd} vs random, exact W/D/L",
                     f"{e.win:.2%} / {e.draw:.2%} / {e.loss:.2%}"])
        rows.append([f"as {sd}, worst case vs any player", worst_case(agent, side=sd).outcome])
    return rows


def _summary_rows(agent, out, seconds, side):
    rows = [["model file", out], ["training time", f"{seconds:.2f} s"]]
    if agent.episodes:
        rows.append(["episodes", f"{agent.episodes:,}"])
        if seconds > 0:
            rows.append(["episodes/s (wall clock)", f"{agent.episodes / seconds:,.0f}"])
    last = agent.history[-1] if agent.history else {}
    for key in ("epsilon", "alpha"):
        if key in last:
            rows.append([f"final {key}", f"{last[key]:.4g}"])
    if all(k in last for k in ("wins", "draws", "losses")):
        n = last["wins"] + last["draws"] + last["losses"]
        rows.append(["last chunk W/D/L (training)",
                     " / ".join(pct(last[k], n) for k in ("wins", "draws", "losses"))])
    return rows + _exact_rows(agent, side)


def _eval_rows(agent, games, side, seed):
    from ttt_engine import evaluate
    rows = []
    for sd in (("X", "O") if side is None else (side,)):
        r = evaluate(agent, games=games, side=sd, opponent="random", seed=seed)
        n = r.wins + r.draws + r.losses
        rows.append([f"greedy as {sd} vs random", f"{n:,}", pct(r.wins, n), pct(r.draws, n),
                     pct(r.losses, n)])
    return rows


def run(args):
    """Train, save, summarise; returns the exit status."""
    from ttt_engine import plot_history, train
    from ttt_engine.ttt.qagent import DEFAULT_EPISODES, MODE_OPTIONS, check_mode_options
    console = Console.for_args(args)
    options = {k: getattr(args, k) for k in TRAIN_OPTIONS if getattr(args, k) is not None}
    if args.shaping:
        options["shaping"] = True
    if args.symmetry:
        options["symmetry"] = True
    # everything that can fail is checked before the training
    mode = options.get("mode", "curriculum")
    for key in MODE_OPTIONS:
        try:
            check_mode_options(mode, **{key: options.get(key)})
        except ValueError:
            modes = " or ".join(MODE_OPTIONS[key])
            raise CLIError(f"--{key.replace('_', '-')} applies to --mode {modes}; --mode "
                           f"{mode} does not use it", EXIT_USAGE) from None
    if args.plot:
        _files.check_plot(args.plot, force=args.force)
    if args.out is not None:
        out = _files.check_output(args.out, "model file", force=args.force)
    else:
        out = _files.check_output(model_path("ttt"), "model file", create_folder=console)
    episodes = options.get("episodes", DEFAULT_EPISODES)
    console.say(f"Training {episodes:,} episodes; the model goes to {out}.")
    t0 = time.perf_counter()
    try:
        agent = train(progress=not args.quiet, **options)
    except ValueError as e:
        raise CLIError(f"cannot train: {e}", EXIT_USAGE) from None
    seconds = time.perf_counter() - t0
    _files.save(agent.save, out, "model file")
    side = trained_side(agent, args.side)
    console.say(table(_summary_rows(agent, out, seconds, side), ["summary", "value"]))
    if args.eval_games:
        console.say()
        console.say(table(_eval_rows(agent, args.eval_games, side, args.seed),
                          ["evaluation", "games", "wins", "draws", "losses"]))
    if args.plot:
        _files.save(lambda p: plot_history(agent.history, p), args.plot, "plot")
        console.say(f"Learning curves written to {args.plot}")
    return EXIT_OK


def add_parser(subparsers):
    """The ``train`` command (Tic-Tac-Toe's own: its registry entry's ``commands``)."""
    return configure(O.add_command(subparsers, COMMAND, run))


def configure(p):
    """Add the training options to parser ``p``."""
    p.add_argument("--episodes", type=O.count(1, O.MAX_EPISODES), metavar="N",
                   help="training episodes (default: train()'s default)")
    p.add_argument("--alpha", type=O.real, help="learning rate in (0, 1] (default 0.1)")
    p.add_argument("--gamma", type=O.real, help="discount in [0, 1] (default 0.9)")
    p.add_argument("--epsilon", type=O.real, help="initial exploration rate in [0, 1]")
    p.add_argument("--epsilon-decay", type=O.real, metavar="DECAY",
                   help="epsilon <- max(epsilon_min, epsilon * DECAY) after each episode")
    p.add_argument("--epsilon-min", type=O.real, metavar="EPS", help="floor of epsilon")
    p.add_argument("--side", choices=("X", "O", "random"),
                   help="mode random: the side the agent learns against a random opponent")
    p.add_argument("--mode", choices=("random", "self-play", "curriculum"),
                   help="random: against a random player; self-play: one table for both "
                        "sides; curriculum (the default): random, then self-play")
    p.add_argument("--curriculum-fraction", type=O.real, metavar="F",
                   help="curriculum: share of episodes against random first (default 0.2)")
    p.add_argument("--curriculum-epsilon", type=O.real, metavar="EPS",
                   help="curriculum: epsilon reset for the self-play phase (default 0.6)")
    p.add_argument("--alpha-decay", type=O.real, metavar="DECAY",
                   help="learning-rate decay per episode")
    p.add_argument("--alpha-min", type=O.real, metavar="A", help="floor of the learning rate")
    p.add_argument("--shaping", action="store_true",
                   help="reward shaping (-0.8 for leaving an immediate win)")
    p.add_argument("--symmetry", action="store_true",
                   help="learn over the 8 rotations/reflections of the board")
    p.add_argument("--seed", type=O.seed, help="seed (same seed, same Q table)")
    p.add_argument("--out", type=O.path, metavar="PATH", help="model file to write (default: the cache)")
    p.add_argument("--plot", type=O.path, metavar="PNG", help="write the learning curves to PNG")
    O.add_force(p)
    p.add_argument("--eval-games", type=O.count(0, O.MAX_GAMES), default=100_000, metavar="N",
                   help="sampled games vs random for the summary, on each side the model "
                        "plays (0 skips; default 100000)")
    O.add_quiet(p)
    return p
