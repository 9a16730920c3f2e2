import { suggestMapping } from '@/lib/shared/conversions/suggest';

describe('suggestMapping', () => {
  test('the event time comes from the only timestamp column when no usual name fits', () => {
    const suggested = suggestMapping({ columns: {}, cursorColumn: '' }, ['lead_id', 'email', 'closed_on'], ['closed_on']);
    expect(suggested.columns.eventTime).toBe('closed_on');
    expect(suggested.cursorColumn).toBe('closed_on');
  });

  test('two timestamp columns are no guess; a usual name and a given column win', () => {
    expect(suggestMapping({ columns: {}, cursorColumn: '' }, ['a', 'b'], ['a', 'b']).columns.eventTime).toBeUndefined();
    expect(suggestMapping({ columns: {}, cursorColumn: '' }, ['event_time', 'b'], ['b']).columns.eventTime).toBe('event_time');
    expect(suggestMapping({ columns: { eventTime: 'mine' }, cursorColumn: '' }, ['mine', 'b'], ['b']).columns.eventTime).toBe('mine');
  });
});
