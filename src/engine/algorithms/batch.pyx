# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Batched environments: ``n`` games of one kind stepped together in C.

The games live in one C array of state structs; their observations, action
masks, side to move, rewards and end flags live in C arrays that Python sees as
numpy views (rewritten in place, never reallocated).  ``step`` and
``random_actions`` are one ``nogil`` loop over the games, written once over the
fused ``GameState`` of ``game.pxd`` plus the action/plane writers of
``game_actions.pxd``; each game gets its own compiled specialization, and an
environment holds a table of the three loops of its game (``BatchOps``), filled
once when it is built.  Nothing here names a game.

Rules (see docs/envs.md):

- an illegal action (in range but not legal in that game) ends that game: the
  mover gets -1, the opponent +1, the position is left as it was;
- a finished game (terminated or truncated) ignores its action and gets reward
  0 until it is reset (``reset(mask)``), or, with ``autoreset=True``, it is
  reset by the next ``step`` (Gymnasium's next-step mode): that step returns
  the first observation with reward 0 and both flags False;
- Quixo's move cap ends a game as *truncated* (no winner), every other end as
  *terminated* (a TTT or UTTT draw is terminated with reward 0).
"""
from libc.stdint cimport int8_t, uint8_t, int32_t, uint32_t, uint64_t
from libc.stdlib cimport malloc, free
from libc.string cimport memset, memcpy
cimport numpy as cnp
import numpy as np

from ttt_engine._core.core.rng cimport rng_t, rng_seed
from ttt_engine._core.algorithms.game cimport (
    GameState, GameBoard, game_make, game_status, game_to_move, game_init_tables,
)
from ttt_engine._core.algorithms.game_actions cimport (
    game_action_legal, game_action_to_move, game_random_action, game_write_planes,
    game_draw_truncates,
)

cnp.import_array()
game_init_tables()   # every game's lookup tables

# rewards of (first player, second player) by game status
cdef float REWARD[4][2]
REWARD[0][0] = 0.0
REWARD[0][1] = 0.0
REWARD[1][0] = 1.0
REWARD[1][1] = -1.0
REWARD[2][0] = -1.0
REWARD[2][1] = 1.0
REWARD[3][0] = 0.0
REWARD[3][1] = 0.0


cdef struct Arrays:
    int8_t* obs          # [n, obs_size]
    uint8_t* mask        # [n, num_actions]
    int8_t* player       # [n]
    float* rewards       # [n, 2]
    uint8_t* term        # [n]
    uint8_t* trunc       # [n]
    Py_ssize_t obs_size
    Py_ssize_t num_actions
    int draw_truncates   # 1: status "draw" is the move cap (Quixo) -> truncated


ctypedef void (*reset_fn)(void* states, const void* initial, const Arrays* A, Py_ssize_t n,
                          const uint8_t* which) noexcept nogil
ctypedef void (*step_fn)(void* states, const void* initial, const Arrays* A, Py_ssize_t n,
                         const int32_t* actions, const uint8_t* where, bint autoreset) noexcept nogil
ctypedef void (*random_fn)(const void* states, const Arrays* A, Py_ssize_t n, int32_t* out,
                           rng_t* rng) noexcept nogil


# One game's batched loops: the environment's only link to its game.
cdef struct BatchOps:
    size_t state_size
    reset_fn reset
    step_fn step
    random_fn random


# ---------------------------------------------------------------- batched loops
cdef void batch_reset(GameState* states, const GameState* initial, const Arrays* A, Py_ssize_t n,
                      const uint8_t* which) noexcept nogil:
    """Reset every game (``which`` NULL) or those with ``which[i]`` set."""
    cdef Py_ssize_t i
    for i in range(n):
        if which == NULL or which[i]:
            states[i] = initial[0]
            A.rewards[2 * i] = 0.0
            A.rewards[2 * i + 1] = 0.0
            A.term[i] = 0
            A.trunc[i] = 0
            game_write_planes(&states[i], A.obs + i * A.obs_size, A.mask + i * A.num_actions)
            A.player[i] = <int8_t>game_to_move(&states[i])


cdef void batch_step(GameState* states, const GameState* initial, const Arrays* A, Py_ssize_t n,
                     const int32_t* actions, const uint8_t* where, bint autoreset) noexcept nogil:
    """One action per game (actions already checked to be in range); with
    ``where`` (not NULL) only the games where it is set.

    Every array pointer is a local: stores through ``int8``/``uint8`` pointers
    may alias anything, so fields read through ``A`` would be reloaded after
    each of them."""
    cdef Py_ssize_t i
    cdef int a, p, st, cap = A.draw_truncates
    cdef GameState* s
    cdef int8_t* obs
    cdef uint8_t* mask
    cdef float* r
    cdef int8_t* obs0 = A.obs
    cdef uint8_t* mask0 = A.mask
    cdef float* r0 = A.rewards
    cdef int8_t* player = A.player
    cdef uint8_t* term = A.term
    cdef uint8_t* trunc = A.trunc
    cdef Py_ssize_t osz = A.obs_size, nact = A.num_actions
    for i in range(n):
        s = &states[i]
        obs = obs0 + i * osz
        mask = mask0 + i * nact
        r = r0 + 2 * i
        if where != NULL and not where[i]:
            continue
        if term[i] | trunc[i]:
            r[0] = 0.0
            r[1] = 0.0
            if autoreset:
                s[0] = initial[0]
                term[i] = 0
                trunc[i] = 0
                game_write_planes(s, obs, mask)
                player[i] = <int8_t>game_to_move(s)
        else:
            a = actions[i]
            if game_action_legal(s, a):
                game_make(s, game_action_to_move(s, a))
                st = game_status(s)
                game_write_planes(s, obs, mask)
                player[i] = <int8_t>game_to_move(s)
                r[0] = REWARD[st][0]
                r[1] = REWARD[st][1]
                term[i] = (st != 0) & ((st != 3) | (cap == 0))
                trunc[i] = (st == 3) & cap
            else:
                # an illegal action loses the game for the mover; the position stays
                p = game_to_move(s)
                r[p] = -1.0
                r[p ^ 1] = 1.0
                term[i] = 1
                memset(mask, 0, nact)


cdef void batch_random(const GameState* states, const Arrays* A, Py_ssize_t n, int32_t* out,
                       rng_t* rng) noexcept nogil:
    """A uniformly random legal action per game (0 for finished games)."""
    cdef Py_ssize_t i
    cdef rng_t g = rng[0]       # local copies: they stay in registers
    cdef const uint8_t* term = A.term
    cdef const uint8_t* trunc = A.trunc
    for i in range(n):
        if term[i] | trunc[i]:
            out[i] = 0
        else:
            out[i] = game_random_action(&states[i], &g)
    rng[0] = g


cdef Py_ssize_t first_out_of_range(const int32_t* actions, Py_ssize_t n, int num_actions) noexcept nogil:
    """Index of the first action outside ``[0, num_actions)``, or -1."""
    cdef Py_ssize_t i
    cdef uint32_t bad = 0
    cdef uint32_t lim = <uint32_t>num_actions
    for i in range(n):
        bad |= <uint32_t>(<uint32_t>actions[i] >= lim)
    if not bad:
        return -1
    for i in range(n):
        if <uint32_t>actions[i] >= lim:
            return i
    return -1


cdef void batch_ops(const GameState* tag, BatchOps* ops) noexcept nogil:
    """Fill ``ops`` with the loops of ``tag``'s game."""
    ops.state_size = sizeof(GameState)
    ops.reset = <reset_fn>batch_reset[GameState]
    ops.step = <step_fn>batch_step[GameState]
    ops.random = <random_fn>batch_random[GameState]


def _bind(GameBoard board, BatchEnv env):
    """Give ``env`` the loops and the start position of ``board``'s game."""
    batch_ops(&board.state, &env.ops)
    env.A.draw_truncates = game_draw_truncates(&board.state)
    env.initial = malloc(env.ops.state_size)
    if env.initial == NULL:
        raise MemoryError("cannot allocate a game")
    memcpy(env.initial, &board.state, env.ops.state_size)


def _load(GameBoard board, BatchEnv env, Py_ssize_t k):
    """Copy game ``k`` of ``env`` into ``board`` (same game, checked by the caller)."""
    memcpy(&board.state, <char*>env.states + k * env.ops.state_size, env.ops.state_size)


# ---------------------------------------------------------------- Python class
cdef object _view(object owner, void* data, int nd, cnp.npy_intp* dims, int typenum):
    """A read-only numpy array over ``data`` that keeps ``owner`` alive."""
    cdef cnp.ndarray arr = cnp.PyArray_SimpleNewFromData(nd, dims, typenum, data)
    cnp.set_array_base(arr, owner)
    arr.flags.writeable = False
    return arr


cdef class BatchEnv:
    """``n`` games of one kind in C arrays, stepped together without the GIL.

    ``BatchEnv(game, n, seed=None, *, autoreset=False, **game_options)``:
    ``game`` is a registry key (``ttt_engine.games.GAMES``); options are the
    game's (e.g. Clobber ``rows``/``cols``, Quixo ``size``/``max_plies``, UTTT
    ``tiebreak``).  All games start at the initial position.

    Arrays (numpy views of the C arrays, read-only, rewritten in place by every
    call -- copy them to keep a snapshot):

    - ``observation`` int8 ``[n, *obs_shape]`` from the side to move's view;
    - ``legal_action_mask`` bool ``[n, num_actions]`` (all False once over);
    - ``current_player`` int8 ``[n]`` (0 first player, 1 second);
    - ``rewards`` float32 ``[n, 2]`` of the last step, by player (0, 1);
    - ``terminated``, ``truncated`` bool ``[n]``.

    See the module docstring for the rules on illegal actions and finished games.
    """
    cdef void* states
    cdef void* initial
    cdef Arrays A
    cdef int32_t* random_buf
    cdef rng_t rng
    cdef BatchOps ops
    cdef bint busy              # a call is changing the arrays (they are shared by threads)
    cdef readonly Py_ssize_t num_envs
    cdef readonly int num_actions
    cdef readonly tuple obs_shape
    cdef readonly bint autoreset
    cdef readonly str game
    cdef readonly dict options
    cdef readonly object seed
    cdef object _proto
    cdef readonly object observation
    cdef readonly object legal_action_mask
    cdef readonly object current_player
    cdef readonly object rewards
    cdef readonly object terminated
    cdef readonly object truncated
    cdef object _random

    def __cinit__(self, *args, **kwargs):
        self.states = NULL
        self.initial = NULL
        self.random_buf = NULL
        memset(&self.A, 0, sizeof(Arrays))

    def __dealloc__(self):
        free(self.states)
        free(self.initial)
        free(self.random_buf)
        free(self.A.obs)
        free(self.A.mask)
        free(self.A.player)
        free(self.A.rewards)
        free(self.A.term)
        free(self.A.trunc)

    def __init__(self, game, n, seed=None, *, autoreset=False, **game_options):
        from ttt_engine._util import check_int, resolve_seed
        if self.states != NULL:
            raise RuntimeError("BatchEnv is already initialised")
        key = game.key          # game: its registry entry, from ttt_engine.envs.BatchEnv
        cdef Py_ssize_t count = check_int("n", n, min=1, max=1 << 26)
        if not isinstance(autoreset, bool):
            raise ValueError(f"autoreset must be True or False, got {autoreset!r}")
        board = game.new_board(**game_options)
        self.game = key
        self.options = dict(game_options)
        self._proto = board
        self.autoreset = autoreset
        self.num_envs = count
        self.num_actions = board.num_actions
        self.obs_shape = tuple(board.observation().shape)
        self.seed = resolve_seed(seed)
        rng_seed(&self.rng, <uint64_t>self.seed)
        try:
            _bind(board, self)
        except TypeError:  # pragma: no cover - new_board only makes boards of the game list
            raise ValueError(f"no batched core for {type(board).__name__}") from None
        self.A.obs_size = 1
        for d in self.obs_shape:
            self.A.obs_size *= d
        self.A.num_actions = self.num_actions
        self.states = malloc(self.ops.state_size * count)
        self.random_buf = <int32_t*>malloc(sizeof(int32_t) * count)
        self.A.obs = <int8_t*>malloc(self.A.obs_size * count)
        self.A.mask = <uint8_t*>malloc(self.A.num_actions * count)
        self.A.player = <int8_t*>malloc(count)
        self.A.rewards = <float*>malloc(sizeof(float) * 2 * count)
        self.A.term = <uint8_t*>malloc(count)
        self.A.trunc = <uint8_t*>malloc(count)
        if (self.states == NULL or self.random_buf == NULL
                or self.A.obs == NULL or self.A.mask == NULL or self.A.player == NULL
                or self.A.rewards == NULL or self.A.term == NULL or self.A.trunc == NULL):
            raise MemoryError(f"cannot allocate {count} games")
        cdef cnp.npy_intp dims[5]
        dims[0] = count
        for k, d in enumerate(self.obs_shape):
            dims[k + 1] = d
        self.observation = _view(self, self.A.obs, 1 + len(self.obs_shape), dims, cnp.NPY_INT8)
        dims[1] = self.num_actions
        self.legal_action_mask = _view(self, self.A.mask, 2, dims, cnp.NPY_BOOL)
        self.current_player = _view(self, self.A.player, 1, dims, cnp.NPY_INT8)
        self.terminated = _view(self, self.A.term, 1, dims, cnp.NPY_BOOL)
        self.truncated = _view(self, self.A.trunc, 1, dims, cnp.NPY_BOOL)
        self._random = _view(self, self.random_buf, 1, dims, cnp.NPY_INT32)
        dims[1] = 2
        self.rewards = _view(self, self.A.rewards, 2, dims, cnp.NPY_FLOAT32)
        memset(self.random_buf, 0, sizeof(int32_t) * count)
        self._reset(NULL)

    cdef void _reset(self, const uint8_t* which) noexcept:
        with nogil:
            self.ops.reset(self.states, self.initial, &self.A, self.num_envs, which)

    cdef int _enter(self) except -1:
        # called with the GIL held, so the test and the set are one step
        if self.busy:
            raise RuntimeError("this BatchEnv is already stepping in another thread: "
                               "use one BatchEnv per thread")
        self.busy = True
        return 0

    def reset(self, mask=None, seed=None):
        """Put games back at the start: all of them, or those where the bool
        array ``mask`` (shape ``[n]``) is True.  ``seed`` (optional) reseeds
        the generator of :meth:`random_actions`.  Returns ``observation``."""
        cdef cnp.ndarray m = None
        if seed is not None:
            from ttt_engine._util import resolve_seed
            seed = resolve_seed(seed)
        if mask is not None:
            m = self._bool_mask("mask", mask)
        self._enter()
        try:
            if seed is not None:
                self.seed = seed
                rng_seed(&self.rng, <uint64_t>self.seed)
            self._reset(NULL if m is None else <const uint8_t*>cnp.PyArray_DATA(m))
        finally:
            self.busy = False
        return self.observation

    cdef cnp.ndarray _bool_mask(self, name, value):
        arr = np.asarray(value)
        if arr.dtype != np.bool_ or arr.shape != (self.num_envs,):
            raise ValueError(f"{name} must be a bool array of shape ({self.num_envs},), "
                             f"got {arr.dtype} array of shape {arr.shape}")
        return np.ascontiguousarray(arr).view(np.uint8)

    cdef cnp.ndarray _actions(self, actions):
        """``actions`` as a C-contiguous int32 array of shape ``[n]``, every entry
        in range; ``ValueError`` naming the action range otherwise."""
        cdef cnp.ndarray arr
        rng = f"0..{self.num_actions - 1}"
        if (type(actions) is np.ndarray and cnp.PyArray_TYPE(<cnp.ndarray>actions) == cnp.NPY_INT32
                and cnp.PyArray_NDIM(<cnp.ndarray>actions) == 1
                and cnp.PyArray_DIMS(<cnp.ndarray>actions)[0] == self.num_envs
                and cnp.PyArray_IS_C_CONTIGUOUS(<cnp.ndarray>actions)):
            arr = <cnp.ndarray>actions
        else:
            try:
                a = np.asarray(actions)
            except Exception as e:
                raise ValueError(f"actions must be an integer array of shape ({self.num_envs},) "
                                 f"with values in {rng}: {e}") from None
            if a.dtype.kind not in "iu":
                raise ValueError(f"actions must be integers in {rng} (an int32 array of shape "
                                 f"({self.num_envs},)), got dtype {a.dtype}")
            if a.shape != (self.num_envs,):
                raise ValueError(f"actions must have shape ({self.num_envs},) (one action in {rng} "
                                 f"per game), got shape {a.shape}")
            if a.size and (a.min() < 0 or a.max() >= self.num_actions):
                bad = int(np.flatnonzero((a < 0) | (a >= self.num_actions))[0])
                raise ValueError(f"action {int(a[bad])} of game {bad} is out of range: "
                                 f"{self.game} actions are {rng}")
            arr = np.ascontiguousarray(a, dtype=np.int32)
        cdef Py_ssize_t bad_i
        cdef const int32_t* p = <const int32_t*>cnp.PyArray_DATA(arr)
        with nogil:
            bad_i = first_out_of_range(p, self.num_envs, self.num_actions)
        if bad_i >= 0:
            raise ValueError(f"action {p[bad_i]} of game {bad_i} is out of range: "
                             f"{self.game} actions are {rng}")
        return arr

    def step(self, actions, where=None):
        """Play one action per game (int32 array ``[n]``, values in
        ``0..num_actions-1``); returns ``(observation, rewards, terminated,
        truncated)`` -- the same views as the attributes.

        ``where`` (optional bool array ``[n]``): step only those games; the
        others are left exactly as they are (rewards and flags included) and
        their actions are ignored (but must still be in range)."""
        cdef cnp.ndarray arr = self._actions(actions)
        cdef const int32_t* p = <const int32_t*>cnp.PyArray_DATA(arr)
        cdef bint ar = self.autoreset
        cdef const uint8_t* w = NULL
        cdef cnp.ndarray wa
        if where is not None:
            wa = self._bool_mask("where", where)
            w = <const uint8_t*>cnp.PyArray_DATA(wa)
        self._enter()
        try:
            with nogil:
                self.ops.step(self.states, self.initial, &self.A, self.num_envs, p, w, ar)
        finally:
            self.busy = False
        return self.observation, self.rewards, self.terminated, self.truncated

    def random_actions(self):
        """A uniformly random legal action for every game (0 for finished games),
        drawn in C from the env's seeded generator.  Returns an int32 view that
        the next call overwrites (copy it to keep it)."""
        self._enter()
        try:
            with nogil:
                self.ops.random(self.states, &self.A, self.num_envs, self.random_buf, &self.rng)
        finally:
            self.busy = False
        return self._random

    def boards(self, i):
        """A new ``Board`` holding the position of game ``i`` (no move history).
        A game ended by an illegal action shows the position before that action."""
        from ttt_engine._util import check_int
        cdef Py_ssize_t k = check_int("i", i, min=0, max=self.num_envs - 1)
        b = self._proto.copy()
        _load(b, self, k)
        return b

    def __len__(self):
        return self.num_envs

    def __repr__(self):
        opts = "".join(f", {k}={v!r}" for k, v in self.options.items())
        return (f"BatchEnv({self.game!r}, {self.num_envs}{opts}, autoreset={self.autoreset})")

    def __reduce__(self):
        raise TypeError("BatchEnv cannot be pickled: build a new one in the other process")
