// Which answers are silent (nothing delivered) and which are delivered as they are.
import { silentAnswer, silentNote } from '../../src/jobs/silent-answer';

describe('silentAnswer', () => {
  it('is silent for an empty or whitespace-only answer', () => {
    expect(silentAnswer('')).toBe('empty');
    expect(silentAnswer(' \n\t ')).toBe('empty');
  });

  it('is silent for the marker alone, surrounding whitespace ignored', () => {
    expect(silentAnswer('[SILENT]')).toBe('marker');
    expect(silentAnswer('\n  [SILENT]\n')).toBe('marker');
    expect(silentAnswer('NOTHING', 'NOTHING')).toBe('marker');
  });

  it('delivers an answer that only contains the marker, starts or ends with it, or has it in another case', () => {
    expect(silentAnswer('[SILENT] nothing new here')).toBeUndefined();
    expect(silentAnswer('Looks fine.\n[SILENT]')).toBeUndefined();
    expect(silentAnswer('[silent]')).toBeUndefined();
    expect(silentAnswer('LGTM')).toBeUndefined();
  });

  it('uses the marker it is given instead of the default', () => {
    expect(silentAnswer('[SILENT]', 'NO_COMMENT')).toBeUndefined();
    expect(silentAnswer('NO_COMMENT', 'NO_COMMENT')).toBe('marker');
  });

  it('says in the note why nothing was delivered', () => {
    expect(silentNote('marker', '[SILENT]')).toBe('the agent answered [SILENT]: nothing delivered');
    expect(silentNote('empty', '[SILENT]')).toBe('the agent answered nothing: nothing delivered');
  });
});
