/**
 * The thank-you page example shown beside the website snippet: a purchase pushed to the dataLayer in GA4's
 * e-commerce shape, which the snippet sends as a Purchase whose event id is the transaction id
 * (tests/unit/snippet.test.ts runs this very text with the snippet).
 */
export const PURCHASE_EXAMPLE = `<script>
  // On the order confirmation (thank-you) page, with your order's own values.
  window.dataLayer = window.dataLayer || [];
  window.dataLayer.push({
    event: 'purchase',
    ecommerce: {
      transaction_id: 'ORDER-1042', // your order id: the same order sent twice counts once
      value: 129.9, // the order total
      currency: 'EUR'
    },
    // Optional, and worth it: who bought, so the ad platforms can match the purchase (hashed on arrival).
    user_data: { email: 'ada@example.com' }
  });
</script>`;
