import { Type } from 'typebox';
import { SIGNAL_KINDS } from '../../platform/signals/catalogue.js';
import { IsoDateTime, ref } from '../../platform/http/schemas.js';

const CursorText = { maxLength: 512 };

export const SignalSchema = Type.Object(
  {
    id: Type.String({ description: 'Cursor of this signal: resume after it with `since` (polling, WebSocket) or Last-Event-ID (SSE)' }),
    kind: Type.String({
      description: `What changed (docs/events.md). Known kinds: ${Object.keys(SIGNAL_KINDS).join(', ')}. New kinds may be added within v1: ignore kinds you do not know.`,
      examples: ['me.changed'],
    }),
    resource: Type.String({ description: 'Path below the base URL to pull for the new state', examples: ['/me'] }),
    at: IsoDateTime,
  },
  { $id: 'Signal', title: 'Signal', description: 'Something changed; no data: pull `resource`.', additionalProperties: false },
);

export const SignalPage = Type.Object(
  {
    data: Type.Array(ref(SignalSchema), { description: 'Oldest first' }),
    next_cursor: Type.String({ description: 'Always set: pass as `since` next time (after the last signal returned, or where you were)' }),
    has_more: Type.Boolean({ description: 'More signals are waiting: ask again at once' }),
  },
  { title: 'SignalPage', additionalProperties: false },
);

export const SignalsQuery = Type.Object(
  {
    since: Type.Optional(Type.String({ ...CursorText, description: 'Cursor (a signal id or next_cursor); signals after it. Without it: from the oldest retained signal' })),
    cursor: Type.Optional(Type.String({ ...CursorText, description: 'Same as since (the list convention\'s name)' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50, description: 'Page size, 1 to 200 (default 50)' })),
  },
  { additionalProperties: false },
);

export const StreamQuery = Type.Object(
  {
    since: Type.Optional(Type.String({ ...CursorText, description: 'Resume after this cursor (Last-Event-ID wins when both are sent). Without either: from now on' })),
  },
  { additionalProperties: false },
);

export const StreamHeaders = Type.Object({
  'last-event-id': Type.Optional(Type.String({ ...CursorText, description: 'SSE reconnect: the id of the last signal received' })),
});
