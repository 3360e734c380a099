// Documented Stripe payloads shared by the unit and integration tests.

// The documented example Event object (docs.stripe.com/api/events/object), as Stripe posts it.
export const EVENT_EXAMPLE = JSON.stringify(
  {
    id: 'evt_1NG8Du2eZvKYlo2CUI79vXWy',
    object: 'event',
    api_version: '2019-02-19',
    created: 1686089970,
    data: {
      object: {
        id: 'seti_1NG8Du2eZvKYlo2C9XMqbR0x',
        object: 'setup_intent',
        application: null,
        automatic_payment_methods: null,
        cancellation_reason: null,
        client_secret: 'seti_1NG8Du2eZvKYlo2C9XMqbR0x_secret_O2CdhLwGFh2Aej7bCY7qp8jlIuyR8DJ',
        created: 1686089970,
        customer: null,
        description: null,
        flow_directions: null,
        last_setup_error: null,
        latest_attempt: null,
        livemode: false,
        mandate: null,
        metadata: {},
        next_action: null,
        on_behalf_of: null,
        payment_method: 'pm_1NG8Du2eZvKYlo2CYzzldNr7',
        payment_method_options: {
          acss_debit: {
            currency: 'cad',
            mandate_options: { interval_description: 'First day of every month', payment_schedule: 'interval', transaction_type: 'personal' },
            verification_method: 'automatic',
          },
        },
        payment_method_types: ['acss_debit'],
        single_use_mandate: null,
        status: 'requires_confirmation',
        usage: 'off_session',
      },
    },
    livemode: false,
    pending_webhooks: 0,
    request: { id: null, idempotency_key: null },
    type: 'setup_intent.created',
  },
  null,
  2,
);
