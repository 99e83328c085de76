// validate.mjs FILE...: prints one JSON line per file with the Khronos validator's counts and messages.
import fs from 'node:fs';
import path from 'node:path';
import validator from 'gltf-validator';
for (const file of process.argv.slice(2)) {
  const data = new Uint8Array(fs.readFileSync(file));
  const dir = path.dirname(file);
  const report = await validator.validateBytes(data, {
    uri: path.basename(file),
    externalResourceFunction: (uri) => new Promise((res, rej) => {
      try { res(new Uint8Array(fs.readFileSync(path.join(dir, decodeURIComponent(uri))))); } catch (e) { rej(e.toString()); }
    }),
  });
  const i = report.issues;
  console.log(JSON.stringify({ file, errors: i.numErrors, warnings: i.numWarnings, infos: i.numInfos, hints: i.numHints,
    messages: i.messages.filter((m) => m.severity <= 1).map((m) => `${m.severity === 0 ? 'error' : 'warning'} ${m.code} ${m.pointer || ''}: ${m.message}`) }));
}
