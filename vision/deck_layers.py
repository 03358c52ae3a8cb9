"""The index reader's last convolution, adapted to one deck by a deck profile (``vision.decks``), in NumPy.

Each member of the shipped reader ends in a 3x3 convolution over a (c_in, 4, 4) map (``pre<k>``, batch norm folded
in), a ReLU and a global average pool: its features (``features<k>``, (n, c_out)) feed the linear heads. A profile
may carry its own weights of that convolution (:class:`Layers`): the reader then takes ``pre<k>`` from the model
and computes the features here (:func:`features_of`; about 1 GFLOP for a table's 75 crops). :func:`fit` learns
those weights and the heads together, by backpropagation through the convolution, from the crops of a deck's
example indices, starting from the model's own and held near them; no training library.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from .classes import softmax
from .models.reader import Heads, Layers, columns_of

#: gradient steps of :func:`fit` (Adam, minibatches of :data:`BATCH` crops)
STEPS = 150
BATCH = 256
#: Adam's step size for the heads and for the convolution
RATE_HEADS, RATE_CONV, RATE_AFFINE = 0.01, 0.001, 0.01
#: weight of the squared distance from the model's own weights (per weight), heads and convolution
ANCHOR_HEADS, ANCHOR_CONV = 0.1, 0.01


def fit(pre: list[np.ndarray], rank: np.ndarray, suit: np.ndarray, start: Layers, heads: Heads,
        steps: int = STEPS, rng: np.random.Generator | None = None, batch: int = BATCH) -> tuple[Layers, Heads]:
    """The convolution and heads fitted to crops' ``pre`` maps (per member (n, c_in, 4, 4)) and labels ``rank``,
    ``suit`` (n,) (-1: a joker, no suit term), from ``start`` and ``heads``: the mean cross-entropy of the averaged
    members' rank and suit probabilities, plus :data:`ANCHOR_CONV` / :data:`ANCHOR_HEADS` times the squared
    distance from the start; Adam on minibatches of ``batch`` crops, float32."""
    rng = rng or np.random.default_rng(0)
    params, rates, anchors = [], [], []
    for (w, b), (rw, rb, sw, sb) in zip(start.members, heads.members):
        params += [w.reshape(len(w), -1).astype(np.float32), b.astype(np.float32)] + \
                  [a.astype(np.float32) for a in (rw, rb, sw, sb)]
        rates += [RATE_CONV] * 2 + [RATE_HEADS] * 4
        anchors += [ANCHOR_CONV] * 2 + [ANCHOR_HEADS] * 4
    members = len(pre)

    def add_grads(pick: np.ndarray, grads: list[np.ndarray]) -> None:
        cols, zs, feats = [], [], []
        for k in range(members):
            c = columns_of(pre[k][pick].astype(np.float32))
            z = c @ params[6 * k].T + params[6 * k + 1]
            cols.append(c)
            zs.append(z)
            feats.append(np.maximum(z, 0).mean(1))
        dfeat = _head_grads(feats, rank[pick], suit[pick], params, grads)
        for k in range(members):
            dz = (dfeat[k][:, None, :] / zs[k].shape[1]) * (zs[k] > 0)  # through the mean and the ReLU
            grads[6 * k] += dz.reshape(-1, dz.shape[-1]).T @ cols[k].reshape(-1, cols[k].shape[-1])
            grads[6 * k + 1] += dz.sum((0, 1))

    _adam(params, rates, anchors, len(rank), steps, rng, batch, add_grads)
    layers = Layers(tuple((params[6 * k].reshape(w.shape), params[6 * k + 1])
                          for k, (w, _) in enumerate(start.members)))
    return layers, Heads(tuple(tuple(params[6 * k + 2 + j] for j in range(4)) for k in range(members)))


def fit_affine(pre: list[np.ndarray], rank: np.ndarray, suit: np.ndarray, start: Layers, heads: Heads,
               steps: int = STEPS, rng: np.random.Generator | None = None, batch: int = BATCH) -> tuple[Layers, Heads]:
    """As :func:`fit`, but the convolution's weights stay the model's: only a scale and a shift of each of its output
    channels are learned (as a batch norm re-fitted to the deck), folded into the returned :class:`Layers`. The
    convolution runs once, not at every step (a tenth of :func:`fit`'s time); the scale and shift are held near
    1 and 0 (:data:`ANCHOR_CONV`)."""
    rng = rng or np.random.default_rng(0)
    zs = [columns_of(p.astype(np.float32)) @ w.reshape(len(w), -1).T.astype(np.float32) + b.astype(np.float32)
          for p, (w, b) in zip(pre, start.members)]
    params, rates, anchors = [], [], []
    for (w, _), member in zip(start.members, heads.members):
        params += [np.ones(len(w), np.float32), np.zeros(len(w), np.float32)] + [a.astype(np.float32) for a in member]
        rates += [RATE_AFFINE] * 2 + [RATE_HEADS] * 4
        anchors += [ANCHOR_CONV] * 2 + [ANCHOR_HEADS] * 4
    members = len(pre)

    def add_grads(pick: np.ndarray, grads: list[np.ndarray]) -> None:
        acts = [zs[k][pick] * params[6 * k] + params[6 * k + 1] for k in range(members)]
        feats = [np.maximum(a, 0).mean(1) for a in acts]
        dfeat = _head_grads(feats, rank[pick], suit[pick], params, grads)
        for k in range(members):
            da = (dfeat[k][:, None, :] / acts[k].shape[1]) * (acts[k] > 0)
            grads[6 * k] += (da * zs[k][pick]).sum((0, 1))
            grads[6 * k + 1] += da.sum((0, 1))

    _adam(params, rates, anchors, len(rank), steps, rng, batch, add_grads)
    layers = Layers(tuple((w * params[6 * k][:, None, None, None], b * params[6 * k] + params[6 * k + 1])
                          for k, (w, b) in enumerate(start.members)))
    return layers, Heads(tuple(tuple(params[6 * k + 2 + j] for j in range(4)) for k in range(members)))


def _adam(params: list[np.ndarray], rates: list[float], anchors: list[float], n: int, steps: int,
          rng: np.random.Generator, batch: int, add_grads: Callable[[np.ndarray, list[np.ndarray]], None]) -> None:
    """Adam (:func:`_adam_step`) on ``params`` in place, ``steps`` steps on minibatches of ``batch`` of the ``n``
    crops drawn by ``rng``: each step's gradients are the pull back to the start (``anchors`` times the squared
    distance, per array) plus what ``add_grads(pick, grads)`` adds for the crops ``pick``."""
    origin = [p.copy() for p in params]
    m = [np.zeros_like(p) for p in params]
    v = [np.zeros_like(p) for p in params]
    for t in range(1, steps + 1):
        pick = rng.choice(n, min(batch, n), replace=False)
        grads = [a * 2 * (p - o) for p, o, a in zip(params, origin, anchors)]
        add_grads(pick, grads)
        _adam_step(params, grads, m, v, rates, t)


def _head_grads(feats: list[np.ndarray], rank: np.ndarray, suit: np.ndarray, params: list[np.ndarray],
                grads: list[np.ndarray]) -> list[np.ndarray]:
    """Add to ``grads`` the gradients of the heads' loss (-log of the members' mean probability of each crop's rank
    and suit; label -1: none) over one batch's features (``feats``: each member's (b, d)), at ``params`` (six
    arrays a member: convolution weight and bias, rank and suit heads); return the gradients to each member's
    features."""
    members = len(feats)
    dfeat = [np.zeros_like(f) for f in feats]
    for head, labels in ((0, rank), (2, suit)):
        mask = labels >= 0
        if not mask.any():
            continue
        y = labels[mask]
        s = [softmax(f[mask] @ params[6 * k + 2 + head].T + params[6 * k + 3 + head]) for k, f in enumerate(feats)]
        py = np.mean(s, axis=0)[np.arange(len(y)), y]
        for k, sk in enumerate(s):
            coef = (sk[np.arange(len(y)), y] / py / members)[:, None]
            onehot = np.zeros_like(sk)
            onehot[np.arange(len(y)), y] = 1
            dz = -coef * (onehot - sk) / len(rank)
            grads[6 * k + 2 + head] += dz.T @ feats[k][mask]
            grads[6 * k + 3 + head] += dz.sum(0)
            dfeat[k][mask] += dz @ params[6 * k + 2 + head]
    return dfeat


def _adam_step(params: list[np.ndarray], grads: list[np.ndarray], m: list[np.ndarray], v: list[np.ndarray],
               rates: list[float], t: int) -> None:
    """One Adam step (betas 0.9, 0.999) of every array of ``params`` in place, step ``t`` (from 1)."""
    for i, g in enumerate(grads):
        m[i] = 0.9 * m[i] + 0.1 * g
        v[i] = 0.999 * v[i] + 0.001 * g * g
        params[i] -= rates[i] * (m[i] / (1 - 0.9 ** t)) / (np.sqrt(v[i] / (1 - 0.999 ** t)) + 1e-8)
