#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets into fuzz/corpus/TARGET/: the bundled presets, and small IDX,
CSV, image and safetensors files like those the test suites write. Deterministic, so the committed corpus
can be regenerated; inputs that libFuzzer found and that were fixed are kept beside them as regressions."""
import gzip, json, os, shutil, struct, zlib, glob

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
corpus = os.path.join(root, "fuzz", "corpus")


def put(target, name, data):
    folder = os.path.join(corpus, target)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


def presets():
    for path in sorted(glob.glob(os.path.join(root, "presets", "*.json"))
                       + glob.glob(os.path.join(root, "tests", "**", "*.trainyard.json"), recursive=True)):
        with open(path, "rb") as f:
            put("fuzz_preset", os.path.basename(path), f.read())


def overrides():
    lines = ["fc1.out_features=64", "training.epochs=3", "opt.lr=3e-4\ntraining.batch_size=32",
             "data.kind=images\ndata.features=8", "drop.p=0.5", "training.device=cpu", "fc2.out_features=0",
             "training.stages=[]", "data.samples=10", "schedule.warmup_steps=5"]
    for i, text in enumerate(lines):
        put("fuzz_overrides", "set%d" % i, text)


def idx(type_code, dims, payload):
    return bytes([0, 0, type_code, len(dims)]) + b"".join(struct.pack(">I", d) for d in dims) + payload


def idx_files():
    images = idx(0x08, [3, 4, 4], bytes(range(48)))
    labels = idx(0x08, [3], bytes([0, 1, 2]))
    floats = idx(0x0D, [2, 3], b"".join(struct.pack(">f", v) for v in [0.5, -1, 2, 3, 4.25, 5]))
    ints = idx(0x0C, [2, 2], b"".join(struct.pack(">i", v) for v in [1, -2, 3, 4]))
    for name, data in [("images", images), ("labels", labels), ("floats", floats), ("ints", ints)]:
        put("fuzz_idx", name + ".idx", data)
        put("fuzz_idx", name + ".idx.gz", gzip.compress(data, mtime=0))


def csv_files():
    # The first byte is the harness's options: task, standardize, target column, feature list.
    tables = {
        "iris": "a,b,label\n1.0,2.5,x\n1.5,2.0,y\n\"3\",4e1,x\n0.1,0.2,y\n",
        "numbers": "1,2,3\n4,5,6\n7,8,9\n",
        "crlf": "\ufeffa,b,label\r\n1,2,3\r\n\r\n4,5,6\r\n",
    }
    for name, text in tables.items():
        for options in (0x08, 0x19, 0x0A):
            put("fuzz_csv", "%s-%02x" % (name, options), bytes([options]) + text.encode())
    with open(os.path.join(root, "presets", "wine.csv"), "rb") as f:
        put("fuzz_csv", "wine-head", bytes([0x08]) + b"".join(f.readlines()[:6]))


def png(width, height, gray):
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    channels = 1 if gray else 3
    rows = b"".join(b"\0" + bytes((x * 37 + y * 11 + c) % 256 for x in range(width) for c in range(channels))
                    for y in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 0 if gray else 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


def bmp(width, height):
    row = bytes((x * 5) % 256 for x in range(width * 3))
    row += b"\0" * ((4 - len(row) % 4) % 4)
    pixels = row * height
    info = struct.pack("<IiiHHIIiiII", 40, width, height, 1, 24, 0, len(pixels), 2835, 2835, 0, 0)
    return b"BM" + struct.pack("<IHHI", 14 + 40 + len(pixels), 0, 0, 54) + info + pixels


def images():
    # The first byte picks the suffix (0 png, 1 jpg, 2 bmp, 3 jpeg) and the model's input (4: RGB 32x32).
    put("fuzz_image", "gray.png", b"\x00" + png(6, 5, True))
    put("fuzz_image", "rgb.png", b"\x04" + png(4, 4, False))
    put("fuzz_image", "small.bmp", b"\x02" + bmp(3, 2))
    jpeg = os.path.join(root, "fuzz", "seeds", "tiny.jpg")
    if os.path.exists(jpeg):
        with open(jpeg, "rb") as f:
            put("fuzz_image", "tiny.jpg", b"\x05" + f.read())


def safetensors_file(tensors, metadata=None):
    header, data = {}, b""
    if metadata:
        header["__metadata__"] = metadata
    for name, dtype, shape, payload in tensors:
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [len(data), len(data) + len(payload)]}
        data += payload
    text = json.dumps(header).encode()
    return struct.pack("<Q", len(text)) + text + data


def safetensors():
    f32 = b"".join(struct.pack("<f", v) for v in [1, 2, 3, 4, 5, 6])
    put("fuzz_safetensors", "weights.safetensors", safetensors_file(
        [("fc1.weight", "F32", [2, 3], f32), ("fc1.bias", "F32", [2], f32[:8])],
        {"format": "trainyard-weights", "preset_hash": "ab"}))
    put("fuzz_safetensors", "checkpoint.safetensors", safetensors_file(
        [("trainyard/permutation", "I64", [3], struct.pack("<3q", 2, 0, 1)),
         ("trainyard/rng_cpu", "U8", [4], bytes([1, 2, 3, 4])),
         ("optimizer/fc1.weight/exp_avg", "F32", [1], f32[:4]),
         ("flag", "BOOL", [], b"\x01"), ("half", "F16", [2], b"\0\x3c\0\x40"), ("empty", "I32", [0], b"")],
        {"format": "trainyard-checkpoint", "checkpoint_format": "3", "step": "12", "epoch": "1"}))


def checkpoints():
    # Positions for the run lengths fuzz_checkpoint reads them for: one stage of 3 epochs of 10 steps, and two
    # stages of 2 x 5 and 4 x 7 steps; the data order of 30 samples.
    order = [(i * 7) % 30 for i in range(30)]
    permutation = ("trainyard/permutation", "I64", [30], struct.pack("<30q", *order))
    common = {"format": "trainyard-checkpoint", "version": "3", "has_best": "1", "best_metric": "0.5",
              "stop_has_best": "0", "stop_best_metric": "0", "bad_epochs": "0", "elapsed_seconds": "1.5"}
    one = dict(common, stage="0", stage_start_epoch="0", stage_start_step="0", epoch="1", batch="2", step="12")
    put("fuzz_checkpoint", "one-stage.safetensors", safetensors_file([permutation], one))
    two = dict(common, stage="1", stage_start_epoch="2", stage_start_step="10", epoch="3", batch="4", step="21",
               plateau_scale="0.5", plateau_has_best="1", plateau_best="0.25", plateau_bad_epochs="1",
               plateau_cooldown="0", loss_scale="65536", loss_scale_growth="3")
    put("fuzz_checkpoint", "two-stages.safetensors", safetensors_file([permutation], two))
    boundary = dict(common, version="2", epoch="2", batch="0", step="20")
    put("fuzz_checkpoint", "format-2-boundary.safetensors", safetensors_file([], boundary))


def bundles():
    # fuzz_bundle's input is a bundle without its header and footer (the harness frames it and computes the
    # sha256, so that mutations reach the manifest's checks): u32 length of the blocks, the blocks, the manifest.
    import hashlib
    blocks = bytearray()

    def block(data):
        offset = 16 + len(blocks)
        blocks.extend(data)
        return offset

    def run(uuid, ident, names, rows, sweep=None, trial=None, parent=None, checkpoint=None, evaluation=False):
        packed = b"".join(struct.pack("<iiqdd", n % len(names), step // 10, step, step * 0.01, 1.0 / (step + 1))
                          for step in range(rows) for n in [step])
        record = {"uuid": uuid, "name": "run %d" % ident, "status": "finished", "status_message": None,
                  "error_node": None, "preset_json": json.dumps({"name": "p"}), "preset_hash": None,
                  "created_at": "2026-11-28T01:00:00.000Z", "started_at": None, "ended_at": None,
                  "heartbeat_at": None, "app_version": "0.1", "torch_version": None, "qt_version": None,
                  "device": "cpu", "host": "laptop", "seed": 3, "provenance_json": json.dumps(
                      {"init_from": {"run": 1, "checkpoint": "last"}} if parent else {}),
                  "notes": "n", "sweep_trial": trial, "id": ident, "sweep_uuid": sweep, "parent_uuid": parent,
                  "params": {"opt.lr": "0.01"}, "tags": ["a"],
                  "events": [{"step": 1, "time": 0.5, "kind": "warning", "message": "m"}],
                  "stages": [{"idx": 0, "name": "s", "start_step": 0, "end_step": None, "start_epoch": 0,
                              "epochs": 2, "frozen_json": "[]"}],
                  "metrics": {"names": names, "offset": block(packed), "rows": rows},
                  "checkpoints": [], "evaluations": []}
        if checkpoint:
            record["checkpoints"].append({"step": 4, "epoch": 1, "created_at": None,
                                          "sha256": hashlib.sha256(checkpoint).hexdigest(), "kind": "best",
                                          "file": "step-00000004.safetensors", "offset": block(checkpoint),
                                          "length": len(checkpoint)})
        if evaluation:
            samples = b"".join(struct.pack("<qddd", i, i % 3, (i + 1) % 3, 0.5) for i in range(4))
            record["evaluations"].append({"split": "test", "checkpoint_step": 4, "created_at": None,
                                          "task": "classification", "sample_count": 4, "accuracy": 0.25,
                                          "summary_json": "{}", "samples": {"offset": block(samples), "rows": 4}})
        return record

    sweep_uuid = "5a1b2c3d-0000-4000-8000-00000000000a"
    runs = [run("11111111-1111-4111-8111-111111111111", 1, ["train/loss", "val/accuracy"], 6,
                checkpoint=b"weights", evaluation=True),
            run("22222222-2222-4222-8222-222222222222", 2, ["train/loss"], 3, sweep=sweep_uuid, trial=0),
            run("33333333-3333-4333-8333-333333333333", 5, ["train/loss"], 2,
                parent="11111111-1111-4111-8111-111111111111")]
    sweeps = [{"uuid": sweep_uuid, "name": "s", "status": "finished", "spec_json": "{}", "preset_json": "{}",
               "preset_file": None, "trials_json": "[]", "metric": "val/accuracy", "maximize": 1,
               "created_at": None, "ended_at": None, "host": "laptop", "id": 1,
               "best_run_uuid": "22222222-2222-4222-8222-222222222222"}]
    manifest = {"format": "trainyard-run-bundle", "version": 1, "created_at": "2026-11-28T01:00:00.000Z",
                "app_version": "0.1", "host": "laptop", "sweeps": sweeps, "runs": runs}
    text = json.dumps(manifest, sort_keys=True).encode()
    put("fuzz_bundle", "two-runs-and-a-sweep", struct.pack("<I", len(blocks)) + bytes(blocks) + text)
    empty = dict(manifest, sweeps=[], runs=[])
    put("fuzz_bundle", "empty", struct.pack("<I", 0) + json.dumps(empty).encode())


def onnx_models():
    """Small ONNX models of every op the import has a rule for (onnx.helper; skipped where python3-onnx is missing)."""
    try:
        import numpy as np
        import onnx
        from onnx import helper, numpy_helper
    except ImportError:
        return
    rng = np.random.default_rng(0)

    def w(name, *shape):
        return numpy_helper.from_array(rng.standard_normal(shape).astype(np.float32), name)

    def model(name, nodes, inits, in_shape, out_shape, opset=14):
        graph = helper.make_graph(nodes, name, [helper.make_tensor_value_info("input", onnx.TensorProto.FLOAT, ["N"] + in_shape)],
                                  [helper.make_tensor_value_info("logits", onnx.TensorProto.FLOAT, ["N"] + out_shape)], inits)
        m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], producer_name="make_corpus")
        m.ir_version = 7
        put("fuzz_onnx_import", name + ".onnx", m.SerializeToString())

    n = helper.make_node
    model("mlp", [n("Gemm", ["input", "w1", "b1"], ["h1"], name="/fc1/Gemm", transB=1), n("Relu", ["h1"], ["h2"], name="/act/Relu"),
                  n("Dropout", ["h2"], ["h3"], name="/drop/Dropout"), n("Gemm", ["h3", "w2", "b2"], ["logits"], name="/fc2/Gemm", transB=1)],
          [w("w1", 8, 6), w("b1", 8), w("w2", 3, 8), w("b2", 3)], [6], [3])
    model("cnn", [n("Conv", ["input", "cw", "cb"], ["c1"], name="/block/conv/Conv", kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
                  n("BatchNormalization", ["c1", "s", "bb", "m", "v"], ["c2"], name="/block/bn/BatchNormalization", epsilon=1e-5),
                  n("Clip", ["c2", "lo", ""], ["c3"], name="/block/act/Clip"),
                  n("MaxPool", ["c3"], ["c4"], name="/pool/MaxPool", kernel_shape=[2, 2], strides=[2, 2]),
                  n("AveragePool", ["c4"], ["c5"], name="/avg/AveragePool", kernel_shape=[1, 1]),
                  n("GlobalAveragePool", ["c5"], ["c6"], name="/GlobalAveragePool"), n("Flatten", ["c6"], ["c7"], name="/Flatten"),
                  n("Gemm", ["c7", "fw", "fb"], ["logits"], name="/fc/Gemm", transB=1)],
          [w("cw", 4, 2, 3, 3), w("cb", 4), w("s", 4), w("bb", 4), w("m", 4), numpy_helper.from_array(np.ones(4, np.float32), "v"),
           numpy_helper.from_array(np.array(0, np.float32), "lo"), w("fw", 5, 4), w("fb", 5)], [2, 8, 8], [5])
    model("residual", [n("Conv", ["input", "cw"], ["a"], name="/layer/layer.0/conv/Conv", kernel_shape=[1, 1]),
                       n("Add", ["a", "input"], ["b"], name="/layer/layer.0/Add"),
                       n("Concat", ["b", "input"], ["c"], name="/Concat", axis=1),
                       n("Constant", [], ["shape"], name="/Constant", value=numpy_helper.from_array(np.array([0, -1], np.int64))),
                       n("Reshape", ["c", "shape"], ["d"], name="/Reshape"), n("Identity", ["d"], ["e"], name="/Identity"),
                       n("MatMul", ["e", "mw"], ["f"], name="/head/MatMul"), n("Add", ["f", "mb"], ["g"], name="/head/Add"),
                       n("Softmax", ["g"], ["logits"], name="/Softmax", axis=-1)],
          [w("cw", 2, 2, 1, 1), w("mw", 64, 4), w("mb", 4)], [2, 4, 4], [4])
    model("gelu", [n("Gemm", ["input", "w1", "b1"], ["x"], name="/fc/Gemm", transB=1),
                   n("Div", ["x", "sqrt2"], ["d"], name="/act/Div"), n("Erf", ["d"], ["e"], name="/act/Erf"),
                   n("Add", ["e", "one"], ["p"], name="/act/Add"), n("Mul", ["x", "p"], ["q"], name="/act/Mul"),
                   n("Mul", ["q", "half"], ["g"], name="/act/Mul_1"), n("Tanh", ["g"], ["t"], name="/Tanh"),
                   n("Sigmoid", ["t"], ["s"], name="/Sigmoid"), n("Gemm", ["s", "w2"], ["logits"], name="/out/Gemm", transB=1)],
          [w("w1", 6, 4), w("b1", 6), numpy_helper.from_array(np.array(1.4142135, np.float32), "sqrt2"),
           numpy_helper.from_array(np.array(1.0, np.float32), "one"), numpy_helper.from_array(np.array(0.5, np.float32), "half"),
           w("w2", 3, 6)], [4], [3])

    # MobileNet's depthwise convolution (group = channels) and ReLU6 (Clip(0, 6), bounds as inputs).
    model("depthwise", [n("Conv", ["input", "dw"], ["d1"], name="/features/features.0/conv/Conv", kernel_shape=[3, 3], pads=[1, 1, 1, 1], group=4),
                        n("Clip", ["d1", "lo", "hi"], ["d2"], name="/features/features.0/act/Clip"),
                        n("Conv", ["d2", "pw", "pb"], ["d3"], name="/features/features.0/project/Conv", kernel_shape=[1, 1]),
                        n("GlobalAveragePool", ["d3"], ["d4"], name="/GlobalAveragePool"), n("Flatten", ["d4"], ["d5"], name="/Flatten"),
                        n("Gemm", ["d5", "fw", "fb"], ["logits"], name="/classifier/Gemm", transB=1)],
          [w("dw", 4, 1, 3, 3), numpy_helper.from_array(np.array(0, np.float32), "lo"), numpy_helper.from_array(np.array(6, np.float32), "hi"),
           w("pw", 8, 4, 1, 1), w("pb", 8), w("fw", 3, 8), w("fb", 3)], [4, 6, 6], [3])


presets(); overrides(); idx_files(); csv_files(); images(); safetensors(); checkpoints(); bundles(); onnx_models()
