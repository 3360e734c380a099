// What a feature adds to the request path: hooks at three points of WebhookPipeline (pipeline.ts), declared here
// beside it so that the pipeline runs features without knowing any. A hook with nothing to do answers at once
// (undefined, not a promise): a route that uses no feature pays a property look-up per hook, never an await.
import type { AcceptOutcome, AcceptRequest } from '@hookwise/core';
import type { Route } from '../routes/routes';
import type { FilterFailure } from '../filters/filters';
import type { IngestRequest, IngestResult, NamedSource, PipelineDeps } from './pipeline-contract';

export type MaybeAsync<T> = T | undefined | Promise<T | undefined>;

/** A verified and parsed request, before its delivery id and event type are read. */
export interface ParsedRequest {
  req: IngestRequest;
  route: Route;
  /** The source that verified it (undefined on an INSECURE_NO_AUTH route that no style's header marked). */
  source: NamedSource | undefined;
  payload: Record<string, unknown>;
}

/** An event of a route: the parsed request with its delivery id and event type. */
export interface IngestEvent extends ParsedRequest {
  payloadJson: string | undefined;
  deliveryId: string;
  event: string;
  receivedAt: number;
  /** Whether the route takes this event type (`events:`). */
  wanted: boolean;
  /** What the pipeline runs on: for a hook that stores the event on another route and answers as the pipeline does. */
  deps: PipelineDeps;
  /** The pipeline's store step (one `Store.accept`, grouped with the turn's other requests where the store can). */
  accept(request: AcceptRequest): Promise<AcceptOutcome>;
}

/** What an event hook decided: answer now, drop the event as filtered (200 ignored), or go on with another payload. */
export type EventVerdict = { answer: IngestResult } | { filtered: FilterFailure } | { payload: Record<string, unknown>; payloadJson: string | undefined };

/** Armed before the store step of a job the route will run; its answer replaces the store's. */
export interface AcceptWatch {
  /** The request's answer once the store step answered `result` with `answer`. */
  answerFor(result: AcceptOutcome, answer: IngestResult): Promise<IngestResult>;
  /** The store step failed: nothing to wait for. */
  cancel(): void;
}

export interface IngestHook {
  /** The feature's name, for errors. */
  readonly name: string;
  /** A request that is no event (an Approve / Deny press): answered here and never enqueued. */
  request?(parsed: ParsedRequest): MaybeAsync<IngestResult>;
  /** Each event, hooks in order; the first verdict that answers or filters ends the chain (a new payload goes on). */
  event?(event: IngestEvent): MaybeAsync<EventVerdict>;
  /** A job the route will run, before its store step. */
  watch?(route: Route): AcceptWatch | undefined;
}
