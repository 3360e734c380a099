// The over-HTTP conformance tests of @hookwise/testing for the Telegram source: a real gateway whose route holds two
// secrets (rotation), updates sent with X-Telegram-Bot-Api-Secret-Token as Telegram sends them after setWebhook.
// Telegram's delivery id is the update's update_id, in the body: bodyFor() gives each kit delivery id an update_id
// of its own (the same id, a retry, gives the same bytes), and expectedDeliveryId() applies the same rule.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describeSourceOverHttp } from '@hookwise/testing';

const MESSAGE = readFileSync(join(__dirname, '..', 'fixtures', 'message.json'), 'utf8').trim();
const SECRETS: [string, string] = ['telegram_new-Secret_0123456789', 'telegram_old-Secret_0123456789'];

const updateIdFor = (deliveryId: string) => String(Number.parseInt(createHash('sha256').update(deliveryId).digest('hex').slice(0, 12), 16));

describeSourceOverHttp('telegram', {
  source: 'telegram',
  // A chat source's route names who may start a run (allow_from); anyone, for the conformance cases.
  route: { allow_from: ['*'] },
  secrets: SECRETS,
  body: MESSAGE,
  event: 'message',
  bodyFor: ({ deliveryId }) => MESSAGE.replace('"update_id":10000', `"update_id":${updateIdFor(deliveryId)}`),
  expectedDeliveryId: updateIdFor,
  sign: ({ key }) => ({ 'X-Telegram-Bot-Api-Secret-Token': key === 'wrong' ? 'not_the_route_secret_0123' : SECRETS[key] }),
});
