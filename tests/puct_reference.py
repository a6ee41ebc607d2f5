"""Independent pure-Python PUCT (AlphaZero's search), written from the rules in
docs/puct.md (restated below) against the public Board API only, used by the tests to
check the compiled ``ttt_engine.search.PUCT`` visit count by visit count.

It is slow and simple on purpose: a node is a Python object, a simulation
replays its moves on a copy of the root board.

The rules, exactly:

- A node holds N (visits), W (sum of the values backed up into it, from the
  view of the player who MOVED INTO the node), P (its prior, a float32) and
  its children, in ``board.legal_moves`` order.
- Selection at an expanded node s picks the child maximising Q + U in float64:
  ``Q = W / N`` (0.0 when N == 0), ``U = c(s) * P * sqrt(N_s) / (1 + N)``,
  ``c(s) = c_puct`` or, with ``c_base``, ``c_init + log((N_s + c_base + 1) / c_base)``;
  ties go to the first child (strict ``>``).
- A leaf is a node without children.  At a finished game the value for the
  side to move there is -1 if the player who moved into it won, +1 if that
  player's opponent won (Quixo: a move may complete the other side's line), 0
  for a draw.  Otherwise the evaluator gives (logits, value) and the leaf is
  expanded with P = softmax over the legal actions of the float32 logits
  (computed in float64 after subtracting the maximum, stored as float32).
- Backup of a value v (side to move at the leaf): the leaf gets N += 1,
  W += -v, its parent N += 1, W += v, and so on up to the root.
- batch_size k > 1 (virtual loss): leaves are gathered one selection at a
  time; each node on a gathered path (root and leaf included) counts for the
  following selections as ``N + pending`` visits with ``W - pending``.  A
  finished-game leaf is backed up at once and counts as a simulation.  A
  selection that ends on a leaf already pending ends the gathering (it adds
  nothing); so does reaching k leaves, or ``done + pending == simulations``.
  Then one evaluator call takes the gathered leaves, which are expanded and
  backed up in gathering order.
- The move played is the most visited root child; among equally visited
  ones the higher prior, then the first (a root whose children are unvisited
  plays its most likely move).
"""
from __future__ import annotations

import math

import numpy as np


class Node:
    __slots__ = ("move", "action", "prior", "visits", "value_sum", "pending", "children")

    def __init__(self, move=None, action=None, prior=np.float32(1.0)):
        self.move = move
        self.action = action
        self.prior = np.float32(prior)
        self.visits = 0
        self.value_sum = 0.0   # from the view of the player who moved into this node
        self.pending = 0       # virtual visits of leaves gathered but not yet backed up
        self.children = []

    def is_leaf(self):
        return not self.children


def softmax_priors(logits, actions):
    """float32 priors over ``actions``: softmax of the float32 ``logits`` of
    those actions, in float64 after subtracting their maximum, summed in order."""
    xs = [float(np.float32(logits[a])) for a in actions]
    top = max(xs)
    exps = [math.exp(x - top) for x in xs]
    total = 0.0
    for e in exps:
        total += e
    return [np.float32(e / total) for e in exps]


def terminal_value(board, mover):
    """Value of a finished game for the side to move at ``board``; ``mover``
    is the player who made the last move."""
    winner = board.winner
    if winner == "draw" or winner is None:
        return 0.0
    return -1.0 if winner == mover else 1.0


class ReferencePUCT:
    """The search of the module docstring.  ``evaluator(observations, masks)``
    follows the evaluator protocol; ``search(board, simulations)`` returns the
    most visited move (first in move order among equals)."""

    def __init__(self, evaluator, *, c_puct=1.25, c_base=None, c_init=None, batch_size=1):
        self.evaluator = evaluator
        self.c_puct = float(c_puct)
        self.c_base = None if c_base is None else float(c_base)
        self.c_init = float(c_puct if c_init is None else c_init)
        self.batch_size = int(batch_size)
        self.root = None
        self.root_board = None
        self.evaluator_calls = 0
        self.evaluations = 0

    # ------------------------------------------------------------ selection
    def exploration(self, parent_visits):
        if self.c_base is None:
            return self.c_puct
        return self.c_init + math.log((parent_visits + self.c_base + 1.0) / self.c_base)

    def select_child(self, node):
        parent_visits = node.visits + node.pending
        c = self.exploration(parent_visits)
        sqrt_n = math.sqrt(parent_visits)
        best, best_score = None, -math.inf
        for child in node.children:
            n = child.visits + child.pending
            q = (child.value_sum - child.pending) / n if n > 0 else 0.0
            u = c * float(child.prior) * sqrt_n / (1 + n)
            score = q + u
            if score > best_score:
                best, best_score = child, score
        return best

    def descend(self):
        """(path from the root to a leaf, the leaf's board, the player who moved
        into the leaf: None at the root)."""
        node, board, mover = self.root, self.root_board.copy(), None
        path = [node]
        while not node.is_leaf():
            node = self.select_child(node)
            mover = board.to_move
            board.push(node.move)
            path.append(node)
        return path, board, mover

    # ------------------------------------------------------------ expansion / backup
    @staticmethod
    def backup(path, value):
        """``value``: from the view of the side to move at the leaf ``path[-1]``."""
        v = -float(value)                 # the leaf's W is from its mover's view
        for node in reversed(path):
            node.visits += 1
            node.value_sum += v
            v = -v

    def expand(self, node, board, logits):
        moves = list(board.legal_moves)
        actions = [board.move_to_action(m) for m in moves]
        priors = softmax_priors(logits, actions)
        node.children = [Node(m, a, p) for m, a, p in zip(moves, actions, priors)]

    def evaluate(self, boards):
        obs = np.stack([b.observation() for b in boards])
        masks = np.stack([b.action_mask() for b in boards])
        logits, values = self.evaluator(obs, masks)
        self.evaluator_calls += 1
        self.evaluations += len(boards)
        return np.asarray(logits, dtype=np.float32), np.asarray(values, dtype=np.float32)

    # ------------------------------------------------------------ the search
    def search(self, board, simulations):
        if self.root is None or self.root_board != board:
            self.root, self.root_board = Node(), board.copy()
        done = 0
        while done < simulations:
            gathered = []                       # (path, board) of leaves to evaluate
            while len(gathered) < self.batch_size and done + len(gathered) < simulations:
                path, leaf_board, mover = self.descend()
                if leaf_board.is_terminal():
                    self.backup(path, terminal_value(leaf_board, mover))
                    done += 1
                    continue
                if path[-1].pending:
                    break
                for node in path:
                    node.pending += 1
                gathered.append((path, leaf_board))
            if not gathered:
                continue
            logits, values = self.evaluate([b for _, b in gathered])
            for i, (path, leaf_board) in enumerate(gathered):
                for node in path:
                    node.pending -= 1
                self.expand(path[-1], leaf_board, logits[i])
                self.backup(path, values[i])
            done += len(gathered)
        return self.best_move()

    def advance(self, move):
        """Keep the subtree of ``move`` as the new root (a fresh tree if absent)."""
        nxt = self.root_board.copy()
        nxt.push(move)
        child = next((c for c in self.root.children if c.move == move), None)
        self.root = child if child is not None else Node()
        self.root_board = nxt

    # ------------------------------------------------------------ results
    def visits(self):
        """{move: visits} of the root's children, in move order."""
        return {c.move: c.visits for c in self.root.children}

    def best_move(self):
        """The most visited root child; ties: the higher prior, then the first."""
        best = None
        for c in self.root.children:
            if best is None or (c.visits, c.prior) > (best.visits, best.prior):
                best = c
        return None if best is None else best.move

    def root_value(self):
        """Mean backed-up value at the root from its side to move's view."""
        return -self.root.value_sum / self.root.visits

    def policy(self, num_actions, temperature=1.0):
        pi = np.zeros(num_actions, dtype=np.float64)
        if temperature == 0:
            pi[self.root_board.move_to_action(self.best_move())] = 1.0
            return pi
        for c in self.root.children:
            pi[c.action] = c.visits ** (1.0 / temperature)
        return pi / pi.sum()
