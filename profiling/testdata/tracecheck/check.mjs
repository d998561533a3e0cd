// Loads a Chrome trace (argv[3]) into the Chrome DevTools performance panel's
// trace engine (@paulirish/trace_engine, under the node_modules directory
// argv[2]) and prints, as JSON, what the engine made of it: each process
// with its name, each of its threads with its name, and the thread's events
// as the engine lists them (name, category, start and duration in
// microseconds), with the depth of the thread's event tree.
import fs from 'node:fs';
import path from 'node:path';
import {pathToFileURL} from 'node:url';

const [modules, tracePath] = process.argv.slice(2);
if (!modules || !tracePath) {
  console.error('usage: node check.mjs NODE_MODULES_DIR TRACE.json');
  process.exit(2);
}
// The engine runs in the browser; in node it needs DOMRect (its README).
globalThis.DOMRect ??= class DOMRect {
  constructor(x = 0, y = 0, width = 0, height = 0) {
    Object.assign(this, {x, y, width, height});
  }
};
const engine = await import(pathToFileURL(path.join(modules, '@paulirish/trace_engine/models/trace/trace.js')).href);
const trace = JSON.parse(fs.readFileSync(tracePath, 'utf8'));
const model = engine.TraceModel.Model.createWithAllHandlers();
await model.parse(trace.traceEvents);
const data = model.parsedTrace()?.data;
if (!data) {
  throw new Error('the trace engine parsed no data');
}
const processes = [];
for (const [pid, proc] of data.Renderer.processes) {
  const threads = [];
  for (const [tid, thread] of proc.threads) {
    threads.push({
      tid,
      name: thread.name ?? '',
      depth: thread.tree?.maxDepth ?? -1,
      events: thread.entries.map(e => ({name: e.name, cat: e.cat ?? '', ts: e.ts, dur: e.dur ?? 0})),
    });
  }
  const named = data.Meta.processNames.get(pid);
  processes.push({pid, name: named?.args?.name ?? '', threads});
}
process.stdout.write(JSON.stringify({generic: data.Meta.traceIsGeneric, processes}) + '\n');
