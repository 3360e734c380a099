// What a job's prompt and deliver_extra templates see beside the payload: {__events__} and {__event_count__}.
import { promptOf, templateVarsOf } from '../../src/jobs/job-templates';

describe('template vars of a job', () => {
  const payload = { number: 7, action: 'synchronize' };

  it('gives a job that is not coalesced its payload as the only event', () => {
    expect(templateVarsOf({ payload })).toEqual({ __events__: [payload], __event_count__: 1 });
    expect(promptOf('{__event_count__} event(s) on #{number}', { payload })).toBe('1 event(s) on #7');
  });

  it('gives a coalesced job every payload (mode all) and the number of events', () => {
    const first = { number: 7, action: 'opened' };
    const job = { payload, coalesced: { deliveryIds: ['d1', 'd2'], payloads: [first, payload] } };
    expect(templateVarsOf(job)).toEqual({ __events__: [first, payload], __event_count__: 2 });
    expect(promptOf('{__event_count__} events; first {__events__.0.action}, last {action}', job)).toBe('2 events; first opened, last synchronize');
    // Without a template the prompt is the dump of every event.
    expect(JSON.parse(promptOf(undefined, job))).toEqual([first, payload]);
  });

  it('dumps only the latest payload of a coalesced job in mode latest, as before coalescing', () => {
    const job = { payload, coalesced: { deliveryIds: ['d1', 'd2', 'd3'] } };
    expect(JSON.parse(promptOf(undefined, job))).toEqual(payload);
    expect(JSON.parse(promptOf(undefined, { payload }))).toEqual(payload);
    expect(promptOf('{__event_count__}', job)).toBe('3');
  });
});
