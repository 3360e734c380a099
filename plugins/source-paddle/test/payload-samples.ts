// Documented Paddle notifications the source's tests post, checked against its payload schema (src/payload-schema.ts).
import type { PayloadSample } from '@hookwise/testing';

/** A transaction.completed notification in the shape of Paddle's webhook reference, trimmed; ids vary per event. */
export function transactionCompleted(eventId: string, notificationId = `ntf_${eventId.slice(4)}`): string {
  return JSON.stringify({
    event_id: eventId,
    event_type: 'transaction.completed',
    occurred_at: '2024-04-12T10:18:49.621022Z',
    notification_id: notificationId,
    data: {
      id: 'txn_01hv8wptq8987qeep44cyrewp9',
      status: 'completed',
      customer_id: 'ctm_01hv6y1jedq4p1n0yqn5ba3ky4',
      currency_code: 'USD',
      origin: 'web',
      items: [{ price: { id: 'pri_01gsz8x8sawmvhz1pv30nge1ke', description: 'Monthly' }, quantity: 10 }],
      details: { totals: { subtotal: '30000', tax: '2400', total: '32400', currency_code: 'USD' } },
    },
  });
}

const samples: PayloadSample[] = [
  { name: 'transaction.completed', event: 'transaction.completed', body: transactionCompleted('evt_01hv8x29ncbvskbkcecpxxfsvc') },
];
export default samples;
