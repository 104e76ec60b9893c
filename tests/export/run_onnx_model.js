// Runs an ONNX model with onnxruntime-node, an ONNX runtime independent of Trainyard, for the export tests.
// usage: node run_onnx_model.js RUNTIME_DIR MODEL INPUT_F32 SHAPE_JSON OUTPUT_F32
//   RUNTIME_DIR  the folder npm installed onnxruntime-node into (RUNTIME_DIR/node_modules/onnxruntime-node)
//   INPUT_F32    raw little-endian float32 values of the input tensor `input`, shaped SHAPE_JSON ("[1000,1,28,28]")
//   OUTPUT_F32   receives the raw float32 values of the output `logits`
// Prints {"inputs": [...], "outputs": [...], "dims": [...]}: the model's input and output names and the dims of
// `logits`.
'use strict';

const fs = require('fs');
const path = require('path');

async function main() {
    const [runtimeDir, modelPath, inputPath, shapeJson, outputPath] = process.argv.slice(2);
    if (!outputPath)
        throw new Error('usage: node run_onnx_model.js RUNTIME_DIR MODEL INPUT_F32 SHAPE_JSON OUTPUT_F32');
    const ort = require(path.join(path.resolve(runtimeDir), 'node_modules', 'onnxruntime-node'));
    const dims = JSON.parse(shapeJson);
    const bytes = fs.readFileSync(inputPath);
    // A copy, so the values start at an offset a Float32Array accepts.
    const values = new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
    const expected = dims.reduce((a, b) => a * b, 1);
    if (values.length !== expected)
        throw new Error(`${inputPath} holds ${values.length} values, the shape ${shapeJson} needs ${expected}`);

    const session = await ort.InferenceSession.create(modelPath);
    const results = await session.run({input: new ort.Tensor('float32', values, dims)});
    const logits = results.logits;
    if (!logits)
        throw new Error('the model has no output named logits');
    const data = logits.data;
    fs.writeFileSync(outputPath, Buffer.from(data.buffer, data.byteOffset, data.byteLength));
    process.stdout.write(JSON.stringify({inputs: session.inputNames, outputs: session.outputNames, dims: logits.dims}) + '\n');
}

main().catch((error) => {
    process.stderr.write(`run_onnx_model.js: ${error.message}\n`);
    process.exit(1);
});
