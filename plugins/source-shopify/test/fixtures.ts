// Documented Shopify deliveries shared by the unit and integration tests.

/** shopify.dev/docs/apps/build/webhooks/delivery-structure, "Example payload (products/update)". */
export const PRODUCTS_UPDATE = JSON.stringify({
  id: 9554194432293,
  title: 'T-Shirt',
  status: 'active',
  vendor: 'My Store',
  product_type: 'Shirts',
  updated_at: '2025-04-22T14:30:00-05:00',
  variants: [{ id: 123456789, title: 'Default Title', price: '29.99', sku: 'TSHIRT-001', taxable: true, updated_at: '2025-04-22T14:30:00-05:00' }],
  tags: 'cotton, comfortable',
});

/** The headers Shopify sends beside the HMAC (same page, "Headers"); values in the documented shapes. */
export const DELIVERY_HEADERS = {
  'x-shopify-topic': 'products/update',
  'x-shopify-shop-domain': 'example.myshopify.com',
  'x-shopify-api-version': '2025-04',
  'x-shopify-webhook-id': 'b54557e4-bdd9-4b37-8a5f-bf7d70bcd043',
  'x-shopify-triggered-at': '2025-04-22T19:30:00.877041743Z',
  'x-shopify-event-id': '98880550-7158-44d4-b7cd-2c97c8a091b5',
};
