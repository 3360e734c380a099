// @hookwise/plugin-deliverer-gitlab-comment: posts agent answers as GitLab merge-request or issue notes over the REST
// API. The plugin object (its name, version and API from package.json) and its API.
import { definePlugin, type PluginPackageJson } from '@hookwise/core';
import { gitlabCommentDeliverer } from './gitlab-comment';

export * from './gitlab-comment';
export * from './gitlab-actions';
export * from './note-conversation';
export * from './note-target';
export * from './sticky-note';
export { NotesApi, instanceRoot, type GitlabNote, type NotesApiOptions } from './notes-api';

export default definePlugin({ package: require('../package.json') as PluginPackageJson, contributes: [gitlabCommentDeliverer] });
