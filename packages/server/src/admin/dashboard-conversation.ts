// The event page's conversation section: the turns of the conversation a job started or continues, as
// the records hold them (the event's prompt, each answer, each reply and who wrote it), oldest first.
import { turnLabel, type ConversationView } from '@hookwise/gateway';
import { esc } from './html-escape';

export function conversationSection(view: ConversationView | undefined): string {
  if (!view) return '';
  const turns = view.turns
    .map(
      (t) =>
        `<li class="turn turn-${esc(t.kind)}" data-kind="${esc(t.kind)}"><strong>${esc(turnLabel(t))}</strong> <time datetime="${esc(new Date(t.at).toISOString())}">${esc(new Date(t.at).toISOString())}</time><pre>${esc(t.text)}</pre></li>`,
    )
    .join('\n');
  return `<h2>Conversation</h2>
<p class="muted" id="conversation" data-conversation="${esc(view.id)}" data-turn="${esc(view.turn)}">On ${esc(view.platform)} chat ${esc(view.chat)}, route ${esc(view.route)}: this job's answer is turn ${esc(view.turn)}; ${esc(view.answers)} answered so far.</p>
<ol id="conversation-turns">${turns}</ol>`;
}
