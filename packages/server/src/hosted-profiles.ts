// The gateways one server hosts: the default profile's (the config dir's own routes, at /webhooks/<route>) and one
// per profile of the config dir (at /p/<name>/webhooks/<route>). Each profile is a Gateway of its own, opened on the
// profile's config, so its routes, secrets, store, skills and agents are apart by construction (docs/architecture.md).
import { errorMessage, HookwiseConfigError, isHookwiseConfigError } from '@hookwise/core';
import {
  DEFAULT_PROFILE,
  listProfiles,
  loadConfig,
  misnamedProfileDirs,
  openGateway,
  type Gateway,
  type GatewayObservability,
  type LoadedConfig,
  type OpenedGateway,
  type OpenGatewayOptions,
  type WebhookHandler,
} from '@hookwise/gateway';
import type { Logger } from 'winston';

export interface HostedGateway {
  readonly name: string;
  readonly gateway: Gateway;
  readonly loaded: LoadedConfig;
  readonly observability?: GatewayObservability;
}

/** The hosted gateways by profile name, the default profile's first. */
export class HostedProfiles {
  private readonly byName: Map<string, HostedGateway>;

  constructor(readonly all: readonly HostedGateway[]) {
    this.byName = new Map(all.map((hosted) => [hosted.name, hosted]));
  }

  /** The default profile's gateway: the listener, the admin API's settings and the MCP endpoint are its. */
  get main(): HostedGateway {
    return this.all[0];
  }

  /** Whether any profile is hosted beside the default one (the dashboard then shows a profile column). */
  get several(): boolean {
    return this.all.length > 1;
  }

  get(name: string): HostedGateway | undefined {
    return this.byName.get(name);
  }

  names(): string[] {
    return this.all.map((hosted) => hosted.name);
  }

  /** The webhook handler for `/p/<name>/...` (createIngestListener's lookup); the default profile has no prefix. */
  readonly handlerOf = (name: string): WebhookHandler | undefined => (name === DEFAULT_PROFILE ? undefined : this.byName.get(name)?.gateway.handler);
}

/** An error of one profile, with the profile named first: which of several configs is wrong must be plain. */
function profileError(name: string, err: unknown): Error {
  const prefix = `profile '${name}'`;
  if (isHookwiseConfigError(err)) {
    const heading = err.message.slice(0, Math.max(0, err.message.indexOf(':\n')));
    return new HookwiseConfigError(err.problems, heading.startsWith(prefix) ? heading : `${prefix}: ${heading}`, err.code);
  }
  return new Error(`${prefix}: ${errorMessage(err)}`, { cause: err });
}

/**
 * Opens and starts the gateway of every profile the config dir holds now (profiles added later are served after a
 * restart, as config.yaml changes are), warning about folders whose name cannot be a profile's. One that fails stops
 * startup with its name; the ones already started are closed again.
 */
export async function openProfileGateways(
  root: LoadedConfig,
  env: NodeJS.ProcessEnv | undefined,
  options: OpenGatewayOptions,
  logger: Logger,
): Promise<OpenedGateway[]> {
  for (const name of misnamedProfileDirs(root.configDir))
    logger.warn(
      `${root.configDir}/profiles/${name} is not served: '${name}' is not a profile name (lower-case letters, digits, '-' and '_', starting with a letter or digit; 'default' is the config dir itself)`,
    );
  const opened: OpenedGateway[] = [];
  try {
    for (const name of listProfiles(root.configDir)) {
      let gateway: OpenedGateway;
      try {
        const loaded = loadConfig({ configDir: root.configDir, env, profile: name });
        // Its own subscriptions file, never the default profile's route source.
        gateway = await openGateway(loaded, { ...options, routeSource: undefined });
      } catch (err) {
        throw profileError(name, err);
      }
      try {
        await gateway.start();
      } catch (err) {
        throw profileError(name, err);
      }
      opened.push(gateway);
    }
  } catch (err) {
    await Promise.all(opened.map((gateway) => gateway.close(0).catch(() => undefined)));
    throw err;
  }
  return opened;
}
