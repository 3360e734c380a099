// `webhook subscribe` flags for the subscription's `transform:` (docs/configuration.md#transforms):
// --transform-expression (JSONata) or --transform-command (a program run in the agent sandbox), with
// --transform-timeout and --transform-on-failure. Written in the config form, checked before anything is opened.
import type { SubscriptionEntry } from '@hookwise/gateway';
import { RouteFlagError } from './route-flag-error';

type Transform = NonNullable<SubscriptionEntry['transform']>;

export interface TransformFlags {
  'transform-expression'?: string;
  'transform-command'?: string;
  'transform-timeout'?: string;
  'transform-on-failure'?: string;
}

/** The schema's upper bound (TRANSFORM_MAX_TIMEOUT_SECONDS in the gateway's transform-schema.ts). */
const MAX_TIMEOUT_SECONDS = 60;
const COMMAND_EXAMPLE = `--transform-command '["node","slim-pr.js"]' or --transform-command 'jq -c {title:.pull_request.title}'`;

/**
 * A command as argv: a JSON array of strings as written, or a plain string split at blanks. A plain string with
 * quotes or backslashes is refused rather than guessed at (no shell runs it): the JSON form says exactly what is meant.
 */
export function parseTransformCommand(text: string): string[] {
  const trimmed = text.trim();
  if (trimmed.startsWith('[')) {
    let value: unknown;
    try {
      value = JSON.parse(trimmed);
    } catch (err) {
      throw new RouteFlagError(`--transform-command: '${text}' is not a JSON array (${(err as Error).message}); e.g. ${COMMAND_EXAMPLE}`);
    }
    if (!Array.isArray(value) || !value.length || !value.every((arg) => typeof arg === 'string') || value[0] === '')
      throw new RouteFlagError(`--transform-command takes a non-empty JSON array of strings, the program first; got '${text}' (e.g. ${COMMAND_EXAMPLE})`);
    return value as string[];
  }
  if (/["'\\]/.test(trimmed))
    throw new RouteFlagError(
      `--transform-command '${text}': quotes and backslashes are not interpreted (no shell runs the command); write the arguments as a JSON array, e.g. ${COMMAND_EXAMPLE}`,
    );
  return trimmed.split(/\s+/);
}

/**
 * The transform of the flags: --transform-expression or --transform-command replaces the existing one's kind
 * (keeping its timeout and on-failure unless given), '' for either removes the transform, and no flag keeps it.
 */
export function transformOf(flags: TransformFlags, existing: Transform | undefined): Transform | undefined {
  const expression = flags['transform-expression'];
  const command = flags['transform-command'];
  const timeoutText = flags['transform-timeout'];
  const onFailure = flags['transform-on-failure'];
  if (expression === undefined && command === undefined && timeoutText === undefined && onFailure === undefined) return existing;
  if (expression !== undefined && command !== undefined)
    throw new RouteFlagError('a transform is an expression or a command, not both: give --transform-expression or --transform-command');
  const removing = (expression ?? command)?.trim() === '';
  if (removing) {
    if (timeoutText !== undefined || onFailure !== undefined)
      throw new RouteFlagError('an empty transform removes it: leave out --transform-timeout and --transform-on-failure');
    return undefined;
  }
  const transform: Transform = { ...existing };
  if (expression !== undefined) {
    delete transform.command;
    transform.expression = expression;
  }
  if (command !== undefined) {
    delete transform.expression;
    transform.command = parseTransformCommand(command);
  }
  if (transform.expression === undefined && transform.command === undefined)
    throw new RouteFlagError(
      '--transform-timeout and --transform-on-failure need a transform: add --transform-expression or --transform-command (e.g. --transform-expression \'{"title": pull_request.title}\')',
    );
  if (timeoutText !== undefined) {
    const seconds = Number(timeoutText);
    if (timeoutText.trim() === '' || !Number.isFinite(seconds) || seconds <= 0 || seconds > MAX_TIMEOUT_SECONDS)
      throw new RouteFlagError(
        `--transform-timeout takes seconds, more than 0 and at most ${MAX_TIMEOUT_SECONDS}; got '${timeoutText}' (e.g. --transform-timeout 5)`,
      );
    transform.timeout_seconds = seconds;
  }
  if (onFailure !== undefined) {
    if (onFailure !== 'accept' && onFailure !== 'reject')
      throw new RouteFlagError(`--transform-on-failure takes accept or reject; got '${onFailure}' (e.g. --transform-on-failure reject)`);
    transform.on_failure = onFailure;
  }
  return transform;
}

/** The transform as the summary shows it. */
export function describeTransform(transform: Transform): string {
  const what = transform.expression !== undefined ? `expression ${JSON.stringify(transform.expression)}` : `command ${JSON.stringify(transform.command)}`;
  const extras = [
    transform.timeout_seconds !== undefined ? `${transform.timeout_seconds} s` : '',
    transform.on_failure !== undefined ? `on failure: ${transform.on_failure}` : '',
  ].filter(Boolean);
  return extras.length ? `${what} (${extras.join(', ')})` : what;
}
