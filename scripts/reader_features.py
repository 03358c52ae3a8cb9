#!/usr/bin/env python3
"""Give the index reader's ONNX model its members' features as outputs, for deck profiles (``vision.decks``).

    python scripts/reader_features.py [--model models/reader.onnx]

The exported reader (``scripts/export_reader.py``) averages the probabilities of several small CNNs, each a
feature extractor (global average pool, then flatten) and two linear heads (rank, suit). This adds each member's
features as the outputs ``features0``, ``features1`` ... (``(n, d_k)`` float32) and each member's heads' weights
as the outputs ``rank_w0``, ``rank_b0``, ``suit_w0``, ``suit_b0`` ... (``vision.models.reader.IndexReader.heads``); and, so
that a deck profile can adapt each member's last convolution (``vision.deck_layers``), that convolution's input
``pre0`` ... (``(n, c, 4, 4)``, after the last max-pool) and its weights ``conv_w0``, ``conv_b0`` ... (batch norm
folded in by the export). ``rank`` and ``suit`` are unchanged.
Needs the ``onnx`` package (the ``train`` extra). Rewrites the file in place; running it twice changes nothing.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def add_feature_outputs(path: Path) -> list[str]:
    """Add the members' features as outputs of the model at ``path``; returns the output names added."""
    import onnx
    from onnx import TensorProto, helper

    model = onnx.load(str(path))
    graph = model.graph
    have = {o.name for o in graph.output}
    gemms = {n.name: n for n in graph.node if n.op_type == "Gemm"}
    members = sorted(name.rsplit("/rank/Gemm", 1)[0] for name in gemms if name.endswith("/rank/Gemm"))
    added = []
    for k, member in enumerate(members):
        rank, suit = gemms[f"{member}/rank/Gemm"], gemms[f"{member}/suit/Gemm"]
        init = {t.name: list(t.dims) for t in graph.initializer}
        d = init[rank.input[1]][1]
        outputs = {f"features{k}": (rank.input[0], ["n", d])}
        outputs.update({f"{w}{k}": (g.input[j], init[g.input[j]]) for w, g, j in
                        (("rank_w", rank, 1), ("rank_b", rank, 2), ("suit_w", suit, 1), ("suit_b", suit, 2))})
        by_output = {o: n for n in graph.node for o in n.output}
        pool = by_output[by_output[rank.input[0]].input[0]]  # Flatten <- GlobalAveragePool
        conv = by_output[by_output[pool.input[0]].input[0]]  # Relu <- the last Conv
        assert pool.op_type == "GlobalAveragePool" and conv.op_type == "Conv", (pool.op_type, conv.op_type)
        c_out, c_in = init[conv.input[1]][:2]
        outputs.update({f"pre{k}": (conv.input[0], ["n", c_in, 4, 4]), f"conv_w{k}": (conv.input[1], init[conv.input[1]]),
                        f"conv_b{k}": (conv.input[2], init[conv.input[2]])})
        for name, (tensor, shape) in outputs.items():
            if name in have:
                continue
            graph.node.append(helper.make_node("Identity", [tensor], [name], name=f"/{name}/Identity"))
            graph.output.append(helper.make_tensor_value_info(name, TensorProto.FLOAT, shape))
            added.append(name)
    if added:
        onnx.checker.check_model(model)
        onnx.save(model, str(path))
    return added


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", type=Path, default=ROOT / "models" / "reader.onnx")
    args = ap.parse_args(argv)
    added = add_feature_outputs(args.model)
    print(f"{args.model}: added {', '.join(added) if added else 'nothing (the outputs are there)'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
