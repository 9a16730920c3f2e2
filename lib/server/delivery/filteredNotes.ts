import { createHash } from 'node:crypto';
import type { Conversion } from '@/lib/shared/conversions/conversion';
import type { ConversionEvent } from '@/lib/shared/conversions/event';
import { takesEvent } from '@/lib/server/delivery/mapping';
import type { Settle, Ticket } from '@/lib/server/delivery/tickets';
import { errorFields, labels, log } from '@/lib/server/log';
import type { recordFiltered } from '@/lib/server/repos/deliveryLog';

/** A conversion's filtered-out notes are written at most this often (one document each time). */
const FILTERED_EVERY_MS = 1000;

/** A conversion's filtered-out notes not yet written, and the tickets of the messages they came from. */
interface FilteredNotes {
  key: string;
  orgId: string;
  conversionId: string;
  wanted: string[];
  events: Array<{ id: string; name: string }>;
  messages: string[];
  tickets: Ticket[];
  timer: NodeJS.Timeout | null;
}

/**
 * The events of a message a conversion's event-name filter leaves out, noted so that searching the log for
 * one says why. Gathered per conversion and written at most once a second (one document); the message waits
 * for that write.
 */
export function createFilteredNotes(options: { record: typeof recordFiltered; settle: Settle }) {
  const { record, settle } = options;
  /** Notes gathered per conversion (and the names it wants), each message's ticket waiting for their write. */
  const filtered = new Map<string, FilteredNotes>();
  /** When each conversion's notes were last written (org/conversion; kept a second: sweep). */
  const filteredAt = new Map<string, number>();

  const keyOf = (orgId: string, conversion: Conversion) => `${orgId}/${conversion.id}|${JSON.stringify(conversion.mapping.events)}`;

  /** How long gathered notes wait: until a second after the conversion's last write (none lately: at once). */
  const waitOf = (notes: FilteredNotes) =>
    Math.max(0, (filteredAt.get(`${notes.orgId}/${notes.conversionId}`) ?? 0) + FILTERED_EVERY_MS - Date.now());

  /** Writes a conversion's gathered notes, under an id derived from the messages they cover (written again, it replaces itself). */
  function write(notes: FilteredNotes) {
    if (filtered.get(notes.key) === notes) filtered.delete(notes.key);
    if (notes.timer) clearTimeout(notes.timer);
    notes.timer = null;
    filteredAt.set(`${notes.orgId}/${notes.conversionId}`, Date.now());
    const id = createHash('sha256')
      .update([...notes.messages].sort().join('\n'))
      .digest('hex')
      .slice(0, 32);
    record(notes.orgId, notes.conversionId, notes.events, notes.wanted, id).then(
      () => notes.tickets.forEach((ticket) => settle(ticket, true)),
      (error) => {
        log.error(
          { component: 'worker', ...labels({ org: notes.orgId, conversion: notes.conversionId }), ...errorFields(error) },
          'could not note the events a filter left out; their messages will come again',
        );
        notes.tickets.forEach((ticket) => settle(ticket, false));
      },
    );
  }

  return {
    /** Notes the events of a message the conversion leaves out; the message's ticket waits for the note's write. */
    note(orgId: string, conversion: Conversion, events: ConversionEvent[], messageId: string, ticket: Ticket) {
      const key = keyOf(orgId, conversion);
      let notes = filtered.get(key);
      if (!notes) {
        notes = {
          key,
          orgId,
          conversionId: conversion.id,
          wanted: conversion.mapping.events,
          events: [],
          messages: [],
          tickets: [],
          timer: null,
        };
        filtered.set(key, notes);
      }
      for (const event of events) if (!takesEvent(conversion.mapping, event)) notes.events.push({ id: event.id, name: event.name });
      notes.messages.push(messageId);
      notes.tickets.push(ticket);
      ticket.remaining += 1;
    },
    /** Sets the write of a conversion's gathered notes, if it has any and none is set yet. */
    schedule(orgId: string, conversion: Conversion) {
      const notes = filtered.get(keyOf(orgId, conversion));
      if (notes) notes.timer ??= setTimeout(() => write(notes), waitOf(notes));
    },
    /** Forgets the write times older than the interval (called every second). */
    sweep() {
      for (const [key, at] of filteredAt) if (Date.now() - at > FILTERED_EVERY_MS) filteredAt.delete(key);
    },
    /** Writes every note gathered (a drain). */
    writeAll() {
      for (const notes of [...filtered.values()]) write(notes);
    },
  };
}
