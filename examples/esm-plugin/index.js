// hookwise-plugin-esm-drop: an ES-module-only plugin whose `esm_drop` deliverer writes each answer to
// <dir>/<delivery id>.txt. What makes it a test of the loader: "type": "module", an exports map with only `import`
// (require() cannot load it), top-level await (only a real import() can run it) and a named import from
// @hookwise/core, which is CommonJS.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { isAbsolute, join, resolve } from 'node:path';
import { HookwiseError, definePlugin } from '@hookwise/core';

// package.json is the one place for name, version and plugin API; an ES module reads it with top-level await.
const pkg = JSON.parse(await readFile(new URL('./package.json', import.meta.url), 'utf8'));

/** A file name from a delivery id: ids come from request headers, so nothing path-like survives. */
const fileNameFor = (deliveryId) => `${deliveryId.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^\.+/, '_') || 'delivery'}.txt`;

export default definePlugin({
  package: pkg,
  contributes: [
    {
      kind: 'deliverer',
      id: 'esm_drop',
      description: 'Writes each agent answer to <dir>/<delivery id>.txt (an ES module plugin).',
      optionsSchema: {
        type: 'object',
        required: ['dir'],
        properties: { dir: { type: 'string', description: 'Where answers go; relative to the config dir.' } },
      },
      create(options, ctx) {
        const dir = isAbsolute(options.dir) ? options.dir : resolve(ctx.configDir, options.dir);
        return {
          async deliver(msg) {
            const file = join(dir, fileNameFor(msg.deliveryId));
            try {
              await mkdir(dir, { recursive: true });
              await writeFile(file, `${msg.text}\n`);
            } catch (err) {
              throw new HookwiseError('HW_E_DELIVERY', `esm_drop: cannot write ${file}: ${err.message}`, { retryable: true, cause: err });
            }
            ctx.logger.info(`esm_drop: answer written to ${file}`);
            return { target: file };
          },
        };
      },
    },
  ],
});
