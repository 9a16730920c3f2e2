/**
 * A visitor's IP address and browser (user agent) go to the platforms in clear, as each requires, and so
 * sit in clear in the row as sent. Email, phone and names are hashed before they are kept; these two are
 * personal data too, so the row debugger shows them hidden unless an owner or admin reveals them.
 */

/** Their wire names on every platform we keep rows for: Meta, Google Data Manager, Mixpanel, BigQuery. */
const PERSONAL_FIELDS = new Set(['client_ip_address', 'client_user_agent', 'ipAddress', 'userAgent', 'ip', 'user_agent']);

/** What a hidden value reads as. */
export const HIDDEN_VALUE = '(hidden)';

/** `value` with every personal field's text replaced by HIDDEN_VALUE, at any depth, and the names it hid. */
export function hidePersonalData<T>(value: T): { value: T; hidden: string[] } {
  const hidden = new Set<string>();
  const walk = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(walk);
    if (!node || typeof node !== 'object') return node;
    return Object.fromEntries(
      Object.entries(node).map(([key, item]) => {
        if (!PERSONAL_FIELDS.has(key) || typeof item !== 'string' || item === '') return [key, walk(item)];
        hidden.add(key);
        return [key, HIDDEN_VALUE];
      }),
    );
  };
  return { value: walk(value) as T, hidden: [...hidden].sort() };
}
