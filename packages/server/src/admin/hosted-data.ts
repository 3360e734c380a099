// What the admin API and the dashboard read across the profiles one server hosts: each profile's AdminData (its own
// store, routes, journal), one profile's when `?profile=` names it, else all of them merged. Every job and route
// record carries the profile it belongs to, so the actions taken on it go to the right gateway.
import type { Job, JobSummary } from '@hookwise/core';
import type { MinuteCounts, RequestActivity, UsageReport } from '@hookwise/gateway';
import type { HostedProfiles } from '../hosted-profiles';
import { AdminData, type AgentSubscription, type DeliveryFilters, type QueueDepth } from './admin-data';

/** A record of one profile: the record with the profile it belongs to. */
export type OfProfile<T> = T & { profile: string };

/** One profile's data, or every profile's (the default profile's first). */
export type Selection = readonly AdminData[];

export class HostedData {
  private readonly byName: Map<string, AdminData>;
  readonly all: readonly AdminData[];

  constructor(readonly hosted: HostedProfiles) {
    this.all = hosted.all.map(({ gateway, observability }) => new AdminData(gateway, observability?.journal));
    this.byName = new Map(this.all.map((data) => [data.gateway.profile, data]));
  }

  /** The data `?profile=` selects: one profile's, every profile's without it; a problem for a profile not hosted. */
  select(profile: unknown): { selected: Selection } | { problem: string } {
    if (profile === undefined || profile === '') return { selected: this.all };
    const one = typeof profile === 'string' ? this.byName.get(profile) : undefined;
    if (one) return { selected: [one] };
    return { problem: `no profile '${String(profile)}' on this gateway (profiles: ${this.hosted.names().join(', ')})` };
  }

  /** The default profile's data (what the profile-less parts of the admin API read). */
  get main(): AdminData {
    return this.all[0];
  }

  /** Newest first over the selected profiles; the limit applies after the merge. */
  list(selected: Selection, filters: DeliveryFilters): Promise<Array<OfProfile<JobSummary>>> {
    return merged(selected, filters, (data) => data.list(filters));
  }

  listFull(selected: Selection, filters: DeliveryFilters): Promise<Array<OfProfile<Job>>> {
    return merged(selected, filters, (data) => data.listFull(filters));
  }

  /** The job with this id in the first selected profile that has it, with that profile's data. */
  async find(selected: Selection, id: string): Promise<{ job: Job; data: AdminData } | undefined> {
    const found = await Promise.all(selected.map((data) => data.find(id)));
    const at = found.findIndex((job) => job !== undefined);
    return at === -1 ? undefined : { job: found[at]!, data: selected[at] };
  }

  async queue(selected: Selection): Promise<QueueDepth> {
    const depths = await Promise.all(selected.map((data) => data.queue()));
    const sum = (key: 'pending' | 'dead') => (depths.every((d) => d[key] !== undefined) ? depths.reduce((n, d) => n + d[key]!, 0) : undefined);
    const problems = depths.flatMap((d, i) => (d.problem ? [`${selected[i].gateway.profile}: ${d.problem}`] : []));
    return {
      pending: sum('pending'),
      running: depths.reduce((n, d) => n + d.running, 0),
      dead: sum('dead'),
      ...(problems.length ? { problem: problems.join('; ') } : {}),
    };
  }

  /**
   * One profile's report with the profile on each route's row; over several profiles their rows together (the
   * totals of all routes, `all`, are each profile's own: ask one profile for them).
   */
  async usage(selected: Selection, since: number, route?: string, options: { stored?: boolean } = {}): Promise<UsageReport> {
    const reports = await Promise.all(selected.map((data) => data.usage(since, route, options)));
    const rows = reports.flatMap((report, i) => report.routes.map((row) => ({ ...row, profile: selected[i].gateway.profile })));
    if (reports.length === 1) return { ...reports[0], routes: rows };
    return {
      since,
      jobsRead: reports.reduce((n, r) => n + r.jobsRead, 0),
      complete: reports.every((r) => r.complete),
      counted: reports.every((r) => r.counted),
      routes: rows,
    };
  }

  routes(selected: Selection): Array<{ profile: string; name: string }> {
    return selected.flatMap((data) => data.routes().map((name) => ({ profile: data.gateway.profile, name })));
  }

  agentSubscriptions(selected: Selection): Array<OfProfile<AgentSubscription>> {
    return selected.flatMap((data) => data.agentSubscriptions().map((entry) => ({ ...entry, profile: data.gateway.profile })));
  }

  /** Refused, duplicate and ignored requests, newest first, with their profile. */
  recentRequests(selected: Selection): Array<OfProfile<RequestActivity>> {
    return selected
      .flatMap((data) => (data.journal?.recentRequests() ?? []).map((request) => ({ ...request, profile: data.gateway.profile })))
      .sort((a, b) => b.at - a.at);
  }

  /** Per-minute counts summed over the selected profiles; undefined when no journal is kept. */
  series(selected: Selection, minutes = 30): MinuteCounts[] | undefined {
    const each = selected.flatMap((data) => (data.journal ? [data.journal.series(minutes)] : []));
    if (each.length <= 1) return each[0];
    return each[0].map((minute, i) => {
      const total = { ...minute };
      for (const other of each.slice(1)) {
        const counts = other[i];
        if (!counts) continue;
        for (const key of Object.keys(total) as Array<keyof MinuteCounts>)
          if (key !== 'at') total[key] = key === 'agentMsMax' ? Math.max(total[key], counts[key]) : total[key] + counts[key];
      }
      return total;
    });
  }
}

async function merged<T extends JobSummary>(
  selected: Selection,
  filters: DeliveryFilters,
  read: (data: AdminData) => Promise<T[]>,
): Promise<Array<OfProfile<T>>> {
  const lists = await Promise.all(selected.map(async (data) => (await read(data)).map((job) => ({ ...job, profile: data.gateway.profile }))));
  const all = lists.flat();
  if (lists.length > 1) all.sort((a, b) => b.receivedAt - a.receivedAt || (b.id < a.id ? -1 : b.id > a.id ? 1 : 0));
  return all.slice(0, filters.limit ?? 50);
}
