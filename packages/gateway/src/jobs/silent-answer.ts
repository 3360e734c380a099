// Silent answers: the agent says there is nothing worth delivering by answering the route's silent marker (default
// `[SILENT]`) or nothing at all; the job then ends as `silent` and no deliverer is called.
import { DEFAULT_SILENT_MARKER } from '../config/schema';

/**
 * Why an answer is silent, or undefined when it is to be delivered. Deliberately strict, so that it stays
 * predictable: the answer with surrounding whitespace removed is empty or is exactly the marker (case counts). An
 * answer that merely contains the marker, or starts or ends with it beside other text, is delivered as it is.
 */
export function silentAnswer(answer: string, marker: string = DEFAULT_SILENT_MARKER): 'empty' | 'marker' | undefined {
  const trimmed = answer.trim();
  if (trimmed === '') return 'empty';
  return trimmed === marker.trim() ? 'marker' : undefined;
}

/** The note kept on a silent job, for people. */
export function silentNote(reason: 'empty' | 'marker', marker: string): string {
  return reason === 'empty' ? 'the agent answered nothing: nothing delivered' : `the agent answered ${marker}: nothing delivered`;
}
