// Where the job channel joins the job path: each agent run gets its channel (job-channel.ts) with the tools the
// route allows (its actions), its variables in every process the run starts and its address in the run's sandbox
// network (job-channel-run.ts); the token ends with the run. What the tools recorded joins the run's usage.
import type { AgentUsage, Job } from '@hookwise/core';
import type { JobHook, RunAttachment } from '../jobs/job-hooks';
import type { Route } from '../routes/routes';
import type { ChannelTools } from './channel-tools';
import type { JobChannels } from './job-channel';
import { channelNeeds, withChannelEnv } from './job-channel-run';

/** The tools of one run, with what they recorded for its usage (the route's actions: actions/run-actions.ts). */
export interface RunTools extends ChannelTools {
  usage(usage: AgentUsage | undefined): AgentUsage | undefined;
}

export interface JobChannelHookOptions {
  channels: JobChannels;
  /** The tools a run of the route is offered; undefined: none (the channel still serves its subscriptions API). */
  toolsFor(route: Route, job: Job, signal: AbortSignal): RunTools | undefined;
  /** Whether a path overlaps what the sandbox hides (the CLI's installation is then left out of the run). */
  hidden(path: string): boolean;
}

export function jobChannelHook({ channels, toolsFor, hidden }: JobChannelHookOptions): JobHook {
  return {
    name: 'job-channel',
    partFor: (route, job) => ({
      async attach(signal): Promise<RunAttachment> {
        const tools = toolsFor(route, job, signal);
        const channel = await channels.open({ id: job.id, route: route.name, deliveryId: job.deliveryId }, tools);
        return {
          needs: (needs) => channelNeeds(needs, channel, hidden),
          sandbox: (sandbox) => withChannelEnv(sandbox, channel),
          usage: (usage) => tools?.usage(usage) ?? usage,
          // The token ends with the run: a process the run left behind can no longer subscribe.
          close: () => channel.close(),
        };
      },
    }),
  };
}
