// A local stand-in for GitLab's REST API v4 as its docs describe the Notes API: notes on merge requests and issues
// created with POST .../notes ({body}, answered 201 with the note), edited with PUT .../notes/:note_id (200 with the
// note, 404 "Note Not Found" when it is gone), the project given by numeric id or URL-encoded path, the token in the
// PRIVATE-TOKEN header (401 without it), and GET /user. It records every request and can fail the next ones.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StandInRequest {
  method: string;
  /** The raw request target, percent-encoding kept (`/api/v4/projects/group%2Fproject/...`). */
  url: string;
  headers: http.IncomingHttpHeaders;
  json: unknown;
}

export interface StandInNote {
  id: number;
  body: string;
  noteable_type: 'MergeRequest' | 'Issue';
  noteable_iid: number;
  project_id: number;
  updated: number;
}

export interface GitlabStandIn {
  url: string;
  requests: StandInRequest[];
  notes: StandInNote[];
  /** The next requests to the notes API are answered with these statuses (and Retry-After when given). */
  failNext(...failures: Array<{ status: number; retryAfter?: string }>): void;
  close(): Promise<void>;
}

const NOTES = /^\/api\/v4\/projects\/([^/]+)\/(merge_requests|issues)\/(\d+)\/notes(?:\/(\d+))?$/;

export async function startGitlabStandIn(options: { token: string; project: { id: number; path: string } }): Promise<GitlabStandIn> {
  const requests: StandInRequest[] = [];
  const notes: StandInNote[] = [];
  const failures: Array<{ status: number; retryAfter?: string }> = [];
  let nextId = 1000;
  const send = (res: http.ServerResponse, status: number, json: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(json));
  };
  const noteJson = (note: StandInNote) => ({
    id: note.id,
    type: null,
    body: note.body,
    author: { id: 5, username: 'project_1_bot', name: 'Hookwise bot' },
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: new Date(note.updated).toISOString(),
    system: false,
    noteable_id: 90 + note.noteable_iid,
    noteable_type: note.noteable_type,
    project_id: note.project_id,
    noteable_iid: note.noteable_iid,
    resolvable: false,
    confidential: false,
    internal: false,
  });
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let json: unknown;
      try {
        json = text ? JSON.parse(text) : undefined;
      } catch {
        json = undefined;
      }
      const url = req.url ?? '/';
      requests.push({ method: req.method ?? 'GET', url, headers: req.headers, json });
      if (req.headers['private-token'] !== options.token) return send(res, 401, { message: '401 Unauthorized' });
      if (req.method === 'GET' && url === '/api/v4/user') return send(res, 200, { id: 5, username: 'project_1_bot', bot: true });
      const match = NOTES.exec(url.split('?')[0]);
      if (!match) return send(res, 404, { error: '404 Not Found' });
      const failure = failures.shift();
      if (failure)
        return send(res, failure.status, { message: `${failure.status} stand-in failure` }, failure.retryAfter ? { 'retry-after': failure.retryAfter } : {});
      const [, project, collection, iid, noteId] = match;
      const known = project === String(options.project.id) || project === encodeURIComponent(options.project.path);
      if (!known) return send(res, 404, { message: '404 Project Not Found' });
      const body = (json as { body?: unknown } | undefined)?.body;
      if (typeof body !== 'string' || !body) return send(res, 400, { message: 'body is missing' });
      const type = collection === 'merge_requests' ? 'MergeRequest' : 'Issue';
      if (req.method === 'POST' && !noteId) {
        const note: StandInNote = { id: nextId++, body, noteable_type: type, noteable_iid: Number(iid), project_id: options.project.id, updated: Date.now() };
        notes.push(note);
        return send(res, 201, noteJson(note));
      }
      if (req.method === 'PUT' && noteId) {
        const note = notes.find((n) => n.id === Number(noteId) && n.noteable_type === type && n.noteable_iid === Number(iid));
        if (!note) return send(res, 404, { message: '404 Note Not Found' });
        note.body = body;
        note.updated = Date.now();
        return send(res, 200, noteJson(note));
      }
      return send(res, 405, { message: '405 Method Not Allowed' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    notes,
    failNext: (...more) => failures.push(...more),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
