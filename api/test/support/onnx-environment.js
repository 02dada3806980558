/**
 * Jest's node environment runs each test file in its own realm, with its own Float32Array; onnxruntime-node's native
 * binding makes its output tensors with the main realm's, which onnxruntime-common's `instanceof` checks then refuse.
 * Test files that run the ONNX models (`@jest-environment ./test/support/onnx-environment.js`) share the main
 * realm's typed arrays instead.
 */
const { TestEnvironment } = require('jest-environment-node');

const SHARED = [
  'ArrayBuffer',
  'SharedArrayBuffer',
  'DataView',
  'Int8Array',
  'Uint8Array',
  'Uint8ClampedArray',
  'Int16Array',
  'Uint16Array',
  'Int32Array',
  'Uint32Array',
  'Float32Array',
  'Float64Array',
  'BigInt64Array',
  'BigUint64Array',
];

class OnnxEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    for (const name of SHARED) this.global[name] = globalThis[name];
  }
}

module.exports = OnnxEnvironment;
