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


presets(); overrides(); idx_files(); csv_files(); images(); safetensors(); checkpoints()
