// Converts a TF.js graph model (model.json + weights) into ONNX bytes (opset 13), for the CNN ops that the MediaPipe
// face models use. Plain CommonJS, no dependency beyond onnx-proto.
//
//   const { convertGraphModel } = require('./tfjs-to-onnx');
//   const onnxBytes = convertGraphModel({
//     modelJson,                 // parsed model.json (format 'graph-model')
//     weightsBuffer,             // the weight files of weightsManifest, concatenated in order
//     inputName: 'input',        // ONNX name of the (single) Placeholder; NHWC as in TF, batch dim 'N' when -1
//     outputs: { mesh: 'Identity_2:0' }, // ONNX output name -> TF tensor name
//   });
//
// Layout: one Transpose NHWC->NCHW after the input, the body in NCHW (ONNX's Conv/MaxPool layout), and a Transpose
// back to NHWC before every Reshape and every 4-D graph output, so all shapes the caller sees are TF's.
// Weights are decoded exactly as TF.js decodeWeight does: float32/int32 raw, float16, and uint8/uint16 affine
// quantisation (v * scale + min, rounded for int32). Prelu alphas are used as stored: TF.js computes
// prelu(x, alpha) = x < 0 ? alpha * x : x with the constant as-is (the '/Neg' in the names is a leftover of the
// converter's pattern fusing; the stored value is alpha).
'use strict';

const { onnx } = require('onnx-proto');

const { DataType } = onnx.TensorProto;
const NHWC_TO_NCHW = [0, 3, 1, 2];
const NCHW_TO_NHWC = [0, 2, 3, 1];

/** fp16 bit pattern -> number (exact). */
function halfToFloat(h) {
  const sign = h & 0x8000 ? -1 : 1;
  const exp = (h >> 10) & 0x1f;
  const frac = h & 0x3ff;
  if (exp === 0) return sign * frac * 2 ** -24;
  if (exp === 0x1f) return frac ? NaN : sign * Infinity;
  return sign * (1 + frac / 1024) * 2 ** (exp - 15);
}

/** weightsManifest + concatenated weight bytes -> Map name -> { dtype, shape, data (Float32Array|Int32Array) }. */
function decodeWeights(manifest, buffer) {
  const bytes = new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
  const weights = new Map();
  let offset = 0;
  for (const spec of manifest.flatMap((group) => group.weights)) {
    const size = spec.shape.reduce((a, b) => a * b, 1);
    const q = spec.quantization;
    const width = q ? { uint8: 1, uint16: 2, float16: 2 }[q.dtype] : { float32: 4, int32: 4 }[spec.dtype];
    if (!width) throw new Error(`Weight ${spec.name}: unsupported dtype ${q ? q.dtype + ' quantisation' : spec.dtype}`);
    if (offset + size * width > bytes.length) throw new Error(`Weight ${spec.name} runs past the end of the weights`);
    const raw = bytes.slice(offset, offset + size * width); // copy: aligned for the typed-array views below
    offset += size * width;
    const data = spec.dtype === 'int32' ? new Int32Array(size) : new Float32Array(size);
    if (!q) data.set(spec.dtype === 'int32' ? new Int32Array(raw.buffer) : new Float32Array(raw.buffer));
    else if (q.dtype === 'float16') new Uint16Array(raw.buffer).forEach((h, i) => (data[i] = halfToFloat(h)));
    else {
      const ints = q.dtype === 'uint8' ? raw : new Uint16Array(raw.buffer);
      const round = spec.dtype === 'int32' ? Math.round : (v) => v;
      ints.forEach((v, i) => (data[i] = round(v * q.scale + q.min)));
    }
    weights.set(spec.name, { dtype: spec.dtype, shape: spec.shape, data });
  }
  return weights;
}

/** Transposes a dense row-major array of the given shape by perm. */
function transpose(data, shape, perm) {
  const outShape = perm.map((p) => shape[p]);
  const strides = shape.map((_, i) => shape.slice(i + 1).reduce((a, b) => a * b, 1));
  const out = new data.constructor(data.length);
  const idx = new Array(shape.length).fill(0);
  for (let o = 0; o < out.length; o++) {
    let src = 0;
    for (let d = 0; d < perm.length; d++) src += idx[d] * strides[perm[d]];
    out[o] = data[src];
    for (let d = outShape.length - 1; d >= 0 && ++idx[d] === outShape[d]; d--) idx[d] = 0;
  }
  return { data: out, shape: outShape };
}

const str = (attr) => (attr && attr.s ? Buffer.from(attr.s, 'base64').toString() : undefined);
const ints = (attr) => (attr && attr.list && attr.list.i ? attr.list.i.map(Number) : []);
const strs = (attr) =>
  attr && attr.list && attr.list.s ? attr.list.s.map((s) => Buffer.from(s, 'base64').toString()) : [];
const dims = (shape) => shape.map((d) => (d < 0 ? { dimParam: 'N' } : { dimValue: d }));
const valueInfo = (name, shape) => ({
  name,
  type: { tensorType: { elemType: DataType.FLOAT, shape: shape ? { dim: dims(shape) } : undefined } },
});

function convertGraphModel({ modelJson, weightsBuffer, inputName = 'input', outputs, producer = 'tfjs-to-onnx' }) {
  if (modelJson.format && modelJson.format !== 'graph-model') throw new Error(`Not a graph model: ${modelJson.format}`);
  const weights = decodeWeights(modelJson.weightsManifest, weightsBuffer);
  const tfNodes = new Map(modelJson.modelTopology.node.map((n) => [n.name, n]));
  const nodes = [];
  const initializers = [];
  const inputs = [];
  const values = new Map(); // TF node name -> { name (ONNX tensor), rank, nchw (4-D and in NCHW layout) }
  let uid = 0;
  const fresh = (base) => `${base}__${++uid}`;

  const node = (opType, input, attrs = {}, output = fresh(opType)) => {
    const attribute = Object.entries(attrs).map(([name, v]) => {
      if (typeof v === 'string') return { name, type: onnx.AttributeProto.AttributeType.STRING, s: Buffer.from(v) };
      if (Array.isArray(v)) return { name, type: onnx.AttributeProto.AttributeType.INTS, ints: v };
      if (typeof v === 'number') return { name, type: onnx.AttributeProto.AttributeType.INT, i: v };
      return { name, type: onnx.AttributeProto.AttributeType.FLOAT, f: v.float }; // { float: x }
    });
    nodes.push({ opType, input, output: [output], name: output, attribute });
    return output;
  };
  const init = (name, shape, data) => {
    const dataType = data instanceof Float32Array ? DataType.FLOAT : DataType.INT64;
    const typed = dataType === DataType.FLOAT ? data : BigInt64Array.from(data, (v) => BigInt(v));
    initializers.push({ name, dims: shape, dataType, rawData: new Uint8Array(typed.buffer, 0, typed.byteLength) });
    return name;
  };
  const constant = (ref) => {
    const name = ref.split(':')[0];
    const w = weights.get(name);
    if (!w) throw new Error(`${name} is not a constant with stored weights (op ${tfNodes.get(name)?.op})`);
    return w;
  };
  // A constant operand of an elementwise op against an NCHW activation: broadcast it as TF would against NHWC
  // (pad to rank 4 on the left), then permute to NCHW.
  const broadcastConst = (ref, nchw) => {
    const w = constant(ref);
    if (!nchw) return init(fresh(ref), w.shape, Float32Array.from(w.data));
    const t = transpose(Float32Array.from(w.data), [...Array(4 - w.shape.length).fill(1), ...w.shape], NHWC_TO_NCHW);
    return init(fresh(ref), t.shape, t.data);
  };
  const transposed = new Map(); // one Transpose per value, shared by its consumers
  const relayout = (v, nchw) => {
    if (!transposed.has(v.name)) {
      const name = node('Transpose', [v.name], { perm: nchw ? NHWC_TO_NCHW : NCHW_TO_NHWC });
      transposed.set(v.name, { name, rank: 4, nchw });
    }
    return transposed.get(v.name);
  };
  const toNHWC = (v) => (v.nchw ? relayout(v, false) : v);
  const toNCHW = (v) => {
    if (v.nchw) return v;
    if (v.rank !== 4) throw new Error(`Expected a 4-D tensor for ${v.name}, got rank ${v.rank}`);
    return relayout(v, true);
  };
  const padAttrs = (n) => {
    const padding = str(n.attr.padding);
    if (padding === 'SAME') return { auto_pad: 'SAME_UPPER' }; // TF SAME: the odd pixel goes at the end
    if (padding === 'VALID') return {};
    if (padding === 'EXPLICIT') {
      const [, , t, b, l, r] = ints(n.attr.explicit_paddings); // NHWC pairs
      return { pads: [t, l, b, r] };
    }
    throw new Error(`${n.name}: unsupported padding ${padding}`);
  };
  const activation = (n, name, act, alphaRef, nchw = true) => {
    if (!act) return name;
    if (act === 'Relu') return node('Relu', [name], {}, n.name);
    if (act === 'Relu6') {
      const [lo, hi] = [0, 6].map((v) => init(fresh('clip'), [], new Float32Array([v])));
      return node('Clip', [name, lo, hi], {}, n.name);
    }
    if (act === 'Elu') return node('Elu', [name], {}, n.name);
    if (act === 'Sigmoid') return node('Sigmoid', [name], {}, n.name);
    if (act === 'LeakyRelu')
      return node('LeakyRelu', [name], { alpha: { float: n.attr.leakyrelu_alpha?.f ?? 0.2 } }, n.name);
    if (act === 'Prelu') return node('PRelu', [name, broadcastConst(alphaRef, nchw)], {}, n.name);
    throw new Error(`${n.name}: unsupported fused activation ${act}`);
  };

  const convert = (n, inp) => {
    const attr = n.attr || {};
    const [x] = inp;
    const conv = (depthwise, fused) => {
      if (str(attr.data_format) && str(attr.data_format) !== 'NHWC') throw new Error(`${n.name}: only NHWC`);
      const f = constant(n.input[1]);
      const [kh, kw, cin, cout] = f.shape; // HWIO, or H W C M for depthwise
      const filter = depthwise
        ? { data: transpose(f.data, f.shape, [2, 3, 0, 1]).data, shape: [cin * cout, 1, kh, kw] }
        : transpose(f.data, f.shape, [3, 2, 0, 1]);
      const convIn = [toNCHW(x).name, init(fresh(n.input[1]), filter.shape, filter.data)];
      // fused_ops: [BiasAdd] or [BiasAdd, activation] (args: bias[, alpha]), or [activation] alone (args: [alpha]).
      const ops = fused ? strs(attr.fused_ops) : [];
      const biasAdd = ops[0] === 'BiasAdd';
      const act = biasAdd ? ops[1] : ops[0];
      if (biasAdd)
        convIn.push(init(fresh(n.input[2]), [filter.shape[0]], Float32Array.from(constant(n.input[2]).data)));
      const [, sh, sw] = ints(attr.strides);
      const [, dh, dw] = ints(attr.dilations).length ? ints(attr.dilations) : [1, 1, 1];
      const a = { ...padAttrs(n), strides: [sh, sw], dilations: [dh, dw], kernel_shape: [kh, kw] };
      if (depthwise) a.group = cin;
      const out = node('Conv', convIn, a, act ? fresh(n.name) : n.name);
      return activation(n, out, act, n.input[biasAdd ? 3 : 2]);
    };
    switch (n.op) {
      case 'Identity':
      case 'StopGradient':
      case 'Snapshot':
        return x;
      case 'Conv2D':
      case '_FusedConv2D':
        return { name: conv(false, n.op === '_FusedConv2D'), rank: 4, nchw: true };
      case 'DepthwiseConv2dNative':
      case 'FusedDepthwiseConv2dNative':
        return { name: conv(true, n.op === 'FusedDepthwiseConv2dNative'), rank: 4, nchw: true };
      case 'MaxPool':
      case 'AvgPool': {
        const [, kh, kw] = ints(attr.ksize);
        const [, sh, sw] = ints(attr.strides);
        const a = { ...padAttrs(n), kernel_shape: [kh, kw], strides: [sh, sw] };
        const name = node(n.op === 'MaxPool' ? 'MaxPool' : 'AveragePool', [toNCHW(x).name], a, n.name);
        return { name, rank: 4, nchw: true };
      }
      case 'Pad':
      case 'PadV2': {
        const p = constant(n.input[1]).data; // [rank, 2] in TF (NHWC) order
        const order = x.nchw ? NHWC_TO_NCHW : [...Array(x.rank).keys()];
        const pads = [...order.map((d) => p[2 * d]), ...order.map((d) => p[2 * d + 1])];
        const padIn = [x.name, init(fresh(n.input[1]), [pads.length], pads)];
        if (n.op === 'PadV2') padIn.push(init(fresh(n.input[2]), [], Float32Array.from(constant(n.input[2]).data)));
        return { ...x, name: node('Pad', padIn, { mode: 'constant' }, n.name) };
      }
      case 'AddV2':
      case 'Add':
      case 'Sub':
      case 'Mul':
      case 'RealDiv':
      case 'Maximum':
      case 'Minimum': {
        const opType = { AddV2: 'Add', RealDiv: 'Div', Maximum: 'Max', Minimum: 'Min' }[n.op] || n.op;
        let [a, b] = inp;
        if (a && b && a.nchw !== b.nchw) [a, b] = [toNCHW(a), toNCHW(b)];
        const nchw = (a || b).nchw;
        const ins = [a, b].map((v, i) => (v ? v.name : broadcastConst(n.input[i], nchw)));
        return { name: node(opType, ins, {}, n.name), rank: Math.max(a?.rank ?? 0, b?.rank ?? 0), nchw };
      }
      case 'Relu':
      case 'Relu6':
      case 'Elu':
      case 'Sigmoid':
      case 'LeakyRelu':
        return { ...x, name: activation(n, x.name, n.op) };
      case 'Tanh':
        return { ...x, name: node('Tanh', [x.name], {}, n.name) };
      case 'Prelu':
        return { ...x, name: activation(n, x.name, 'Prelu', n.input[1], x.nchw) };
      case 'ConcatV2': {
        const parts = inp.slice(0, -1);
        let axis = constant(n.input[n.input.length - 1]).data[0];
        const nchw = parts.some((v) => v.nchw);
        const names = parts.map((v) => (nchw ? toNCHW(v) : v).name);
        if (nchw) axis = NHWC_TO_NCHW.indexOf(axis < 0 ? axis + 4 : axis);
        return { name: node('Concat', names, { axis }, n.name), rank: parts[0].rank, nchw };
      }
      case 'Reshape': {
        const shape = Array.from(constant(n.input[1]).data);
        const shapeInit = init(fresh(n.input[1]), [shape.length], shape);
        return { name: node('Reshape', [toNHWC(x).name, shapeInit], {}, n.name), rank: shape.length, nchw: false };
      }
      default:
        throw new Error(`Unsupported TF.js op '${n.op}' (node ${n.name}); tfjs-to-onnx cannot convert this model`);
    }
  };

  // Depth-first from the requested outputs: converts only what they need, in dependency order.
  const visiting = new Set();
  const visit = (ref) => {
    const name = ref.replace(/^\^/, '').split(':')[0];
    if (values.has(name)) return values.get(name);
    const n = tfNodes.get(name);
    if (!n) throw new Error(`The graph has no node ${name}`);
    if (n.op === 'Const') return undefined; // consumed by the op that uses it
    if (visiting.has(name)) throw new Error(`Cycle at ${name}`);
    visiting.add(name);
    let v;
    if (n.op === 'Placeholder') {
      const shape = (n.attr.shape?.shape?.dim || []).map((d) => Number(d.size));
      if (inputs.length) throw new Error(`Only one input is supported (found ${inputs[0].name} and ${name})`);
      inputs.push(valueInfo(inputName, shape));
      v =
        shape.length === 4
          ? toNCHW({ name: inputName, rank: 4, nchw: false })
          : { name: inputName, rank: shape.length };
    } else {
      const inp = (n.input || []).filter((r) => !r.startsWith('^')).map(visit);
      v = convert(n, inp);
    }
    values.set(name, v);
    return v;
  };

  const sigOutputs = Object.values(modelJson.signature?.outputs || {});
  const graphOutputs = Object.entries(outputs).map(([onnxName, tfName]) => {
    const v = visit(tfName);
    if (!v) throw new Error(`Output ${tfName} is a constant`);
    node(v.nchw ? 'Transpose' : 'Identity', [v.name], v.nchw ? { perm: NCHW_TO_NHWC } : {}, onnxName);
    const sig = sigOutputs.find((o) => o.name === tfName || o.name === `${tfName}:0`);
    return valueInfo(
      onnxName,
      sig?.tensorShape?.dim?.map((d) => Number(d.size)),
    );
  });
  if (!inputs.length) throw new Error('The outputs do not depend on any Placeholder');

  const model = onnx.ModelProto.create({
    irVersion: 7,
    opsetImport: [{ domain: '', version: 13 }],
    producerName: producer,
    graph: { name: 'tfjs_graph', node: nodes, initializer: initializers, input: inputs, output: graphOutputs },
  });
  return Buffer.from(onnx.ModelProto.encode(model).finish());
}

module.exports = { convertGraphModel, decodeWeights };
