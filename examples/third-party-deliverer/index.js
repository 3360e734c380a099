// hookwise-plugin-file-drop: a third-party deliverer that writes each agent answer to <dir>/<delivery id>.md.
// Plain CommonJS with @hookwise/core as a peer dependency: the gateway's own copy of core is the one used.
'use strict';
const { mkdir, writeFile } = require('node:fs/promises');
const { isAbsolute, join, resolve } = require('node:path');
const { HookwiseError, PLUGIN_API_VERSION, definePlugin } = require('@hookwise/core');

// Errors worth retrying: the disk or the directory may come back; a missing permission will not.
const TRANSIENT = new Set(['ENOSPC', 'EMFILE', 'ENFILE', 'EAGAIN', 'EBUSY', 'EIO']);

/** A file name from a delivery id: ids come from request headers, so nothing path-like survives. */
function fileNameFor(deliveryId) {
  return `${deliveryId.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^\.+/, '_') || 'delivery'}.md`;
}

function createFileDropDeliverer(options, ctx) {
  const baseDir = isAbsolute(options.dir) ? options.dir : resolve(ctx.configDir, options.dir);
  return {
    async start() {
      await mkdir(baseDir, { recursive: true });
    },
    async deliver(msg, { signal }) {
      if (signal.aborted) throw new HookwiseError('HW_E_DELIVERY', 'file_drop: delivery cancelled (gateway shutting down)', { retryable: true });
      // deliver_extra.subdir (a template) sorts answers, e.g. by repository.
      const dir = msg.extra.subdir ? join(baseDir, msg.extra.subdir.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^\.+/, '_')) : baseDir;
      const file = join(dir, fileNameFor(msg.deliveryId));
      const header = options.header ? `<!-- route: ${msg.route}, event: ${msg.event}, delivery: ${msg.deliveryId} -->\n` : '';
      try {
        await mkdir(dir, { recursive: true });
        await writeFile(file, `${header}${msg.text}\n`, { signal });
      } catch (err) {
        const code = err && err.code;
        throw new HookwiseError(
          'HW_E_DELIVERY',
          `file_drop: could not write ${file} (${code || err}); check that platforms.file_drop.dir is writable by the gateway user`,
          {
            retryable: code === 'ABORT_ERR' || TRANSIENT.has(code),
            cause: err,
          },
        );
      }
      ctx.logger.info(`answer written to ${file}`, { route: msg.route, delivery_id: msg.deliveryId });
      return { target: file, ids: [file] };
    },
  };
}

module.exports = definePlugin({
  meta: { name: 'hookwise-plugin-file-drop', version: '1.0.0', api: PLUGIN_API_VERSION },
  contributes: [
    {
      kind: 'deliverer',
      id: 'file_drop',
      description: 'Writes each answer to <dir>/<delivery id>.md',
      optionsSchema: {
        type: 'object',
        properties: {
          dir: { type: 'string', minLength: 1, default: 'answers', description: 'Directory for answer files; relative to the config dir.' },
          header: { type: 'boolean', default: true, description: 'Start each file with an HTML comment naming route, event and delivery id.' },
          home_channel: { type: ['string', 'number'] },
        },
      },
      create: createFileDropDeliverer,
    },
  ],
});
module.exports.default = module.exports;
module.exports.createFileDropDeliverer = createFileDropDeliverer;
