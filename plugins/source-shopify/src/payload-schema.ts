// What Shopify posts: the resource a topic names, as the Admin API shows it (shopify.dev, "Webhooks").
import type { SourcePayloadSchema } from '@hookwise/core';
import { field, listOf, openObject } from '@hookwise/kit/source';

export const shopifyPayloadSchema: SourcePayloadSchema = {
  envelope: openObject({
    description: 'A Shopify webhook payload: the resource the X-Shopify-Topic header names (a product, an order, ...).',
    docs: 'https://shopify.dev/docs/apps/build/webhooks/delivery-structure',
    properties: { id: field(['integer', 'string'], 'The resource id'), admin_graphql_api_id: field('string') },
  }),
  events: {
    'products/update': openObject({
      description: 'A Shopify products/update payload: the product.',
      docs: 'https://shopify.dev/docs/api/webhooks?reference=toml#list-products/update',
      properties: {
        id: field('integer'),
        title: field('string'),
        status: field('string'),
        vendor: field('string'),
        product_type: field('string'),
        updated_at: field('string'),
        variants: listOf(field('object')),
        tags: field('string', 'Comma-separated'),
      },
      required: ['id'],
    }),
  },
};
