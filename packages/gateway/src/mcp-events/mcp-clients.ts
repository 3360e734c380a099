// The MCP clients an operator issued tokens to (mcp.clients): each token is read from the environment variable
// the config names, and a request's bearer token is compared with every client's in constant time (both hashed
// first, every client compared). Tokens are never logged; problems name the variable, never its value.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { McpConfig } from '../config/mcp-schema';
import { EventGrant } from './event-types';

/** Shortest token accepted, as for admin.token. */
export const MIN_MCP_TOKEN_LENGTH = 16;

export interface McpClient {
  name: string;
  grant: EventGrant;
}

interface KnownClient extends McpClient {
  digest: Buffer;
}

const digest = (value: string): Buffer => createHash('sha256').update(value, 'utf8').digest();

export class McpClients {
  readonly problems: string[] = [];
  private readonly clients: KnownClient[] = [];

  constructor(config: McpConfig | undefined, env: NodeJS.ProcessEnv) {
    for (const [name, client] of Object.entries(config?.clients ?? {})) {
      const token = env[client.token_env];
      const where = `mcp.clients.${name}.token_env`;
      if (token === undefined || token === '') {
        this.problems.push(`${where}: the environment variable ${client.token_env} is not set (put the client's token in <config_dir>/.env)`);
        continue;
      }
      if (token.length < MIN_MCP_TOKEN_LENGTH) {
        this.problems.push(`${where}: the token in ${client.token_env} is shorter than ${MIN_MCP_TOKEN_LENGTH} characters`);
        continue;
      }
      if (this.clients.some((other) => timingSafeEqual(other.digest, digest(token)))) {
        this.problems.push(`${where}: ${client.token_env} holds the same token as another client; give each client its own`);
        continue;
      }
      this.clients.push({ name, grant: new EventGrant(client.events), digest: digest(token) });
    }
  }

  get configured(): boolean {
    return this.clients.length > 0 || this.problems.length > 0;
  }

  /** The client of this name (a subscription names the client that made it), if it still is one. */
  byName(name: string): McpClient | undefined {
    const found = this.clients.find((client) => client.name === name);
    return found ? { name: found.name, grant: found.grant } : undefined;
  }

  /** The clients' names, in config order. */
  names(): string[] {
    return this.clients.map((client) => client.name);
  }

  /** The client whose token an `Authorization: Bearer <token>` header carries; undefined for any other header. */
  authenticate(authorization: string | undefined): McpClient | undefined {
    const match = authorization === undefined ? null : /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    const sent = digest(match ? match[1] : '');
    let found: KnownClient | undefined;
    // Every client is compared, so the time taken does not say which one (or whether any) matched.
    for (const client of this.clients) if (timingSafeEqual(client.digest, sent) && match) found = client;
    return found ? { name: found.name, grant: found.grant } : undefined;
  }
}
