import type { components } from '$api/schema';

type NodeTypeDescription = components['schemas']['NodeType'];
type IconName = NodeTypeDescription['icon'] | 'bolt';

/**
 * How a step looks on the canvas: the icon its node type names in GET /node-types (24×24 stroke
 * paths, drawn in the style of Lucide) on a tile coloured by the type's category. The icon names
 * come from the node folders; their paths live here, since drawing is the web app's business.
 */
export interface NodeLook {
  /** SVG path data, stroked with currentColor on a 24×24 box. */
  icon: string[];
  /** A CSS colour token for the icon's tile. */
  tone: 'blue' | 'violet' | 'green' | 'orange' | 'pink' | 'teal' | 'gray';
}

const ICONS = {
  bolt: ['M13 2 3 14h9l-1 8 10-12h-9l1-8z'],
  globe: ['M12 2a10 10 0 1 0 0 20 10 10 0 0 0 0-20z', 'M2 12h20', 'M12 2a15 15 0 0 1 0 20 15 15 0 0 1 0-20z'],
  branch: [
    'M6 3v12',
    'M18 9a3 3 0 1 0 0-6 3 3 0 0 0 0 6z',
    'M6 21a3 3 0 1 0 0-6 3 3 0 0 0 0 6z',
    'M18 9a9 9 0 0 1-9 9',
  ],
  split: ['M16 3h5v5', 'M8 3H3v5', 'M12 22v-8.3a4 4 0 0 0-1.2-2.8L3 3', 'm15 9 6-6'],
  repeat: ['m17 2 4 4-4 4', 'M3 11v-1a4 4 0 0 1 4-4h14', 'm7 22-4-4 4-4', 'M21 13v1a4 4 0 0 1-4 4H3'],
  merge: ['m8 6 4-4 4 4', 'M12 2v10.3a4 4 0 0 1-1.2 2.8L4 22', 'm20 22-5-5'],
  clock: ['M12 2a10 10 0 1 0 0 20 10 10 0 0 0 0-20z', 'M12 6v6l4 2'],
  code: ['m16 18 6-6-6-6', 'm8 6-6 6 6 6'],
  wand: [
    'M15 4V2',
    'M15 16v-2',
    'M8 9h2',
    'M20 9h2',
    'M17.8 11.8 19 13',
    'M15 9h.01',
    'M17.8 6.2 19 5',
    'm3 21 9-9',
    'M12.2 6.2 11 5',
  ],
  mail: ['M4 4h16a2 2 0 0 1 2 2v12a2 2 0 0 1-2 2H4a2 2 0 0 1-2-2V6a2 2 0 0 1 2-2z', 'm22 7-10 6L2 7'],
  chat: ['M21 15a2 2 0 0 1-2 2H7l-4 4V5a2 2 0 0 1 2-2h14a2 2 0 0 1 2 2z'],
  sparkles: [
    'M12 3l1.9 5.1L19 10l-5.1 1.9L12 17l-1.9-5.1L5 10l5.1-1.9z',
    'M5 3v4',
    'M3 5h4',
    'M19 17v4',
    'M17 19h4',
  ],
  megaphone: ['m3 11 18-5v12L3 14v-3z', 'M11.6 16.8a3 3 0 1 1-5.8-1.6'],
  hourglass: [
    'M5 22h14',
    'M5 2h14',
    'M17 22v-4.2a2 2 0 0 0-.6-1.4L12 12l-4.4 4.4a2 2 0 0 0-.6 1.4V22',
    'M7 2v4.2a2 2 0 0 0 .6 1.4L12 12l4.4-4.4a2 2 0 0 0 .6-1.4V2',
  ],
  play: ['M12 2a10 10 0 1 0 0 20 10 10 0 0 0 0-20z', 'm10 8 6 4-6 4V8z'],
  box: ['M21 8 12 3 3 8v8l9 5 9-5V8z', 'm3 8 9 5 9-5', 'M12 13v8'],
  bot: [
    'M12 8V4H8',
    'M6 8h12a2 2 0 0 1 2 2v8a2 2 0 0 1-2 2H6a2 2 0 0 1-2-2v-8a2 2 0 0 1 2-2z',
    'M2 14h2',
    'M20 14h2',
    'M15 13v2',
    'M9 13v2',
  ],
  hand: [
    'M18 11V6a2 2 0 0 0-4 0v5',
    'M14 10V4a2 2 0 0 0-4 0v6',
    'M10 10.5V6a2 2 0 0 0-4 0v8',
    'M18 8a2 2 0 1 1 4 0v6a8 8 0 0 1-8 8h-2c-2.8 0-4.5-.9-6-2.4l-3.6-3.6a2 2 0 0 1 2.8-2.8L7 15',
  ],
  form: [
    'M9 2h6a1 1 0 0 1 1 1v2H8V3a1 1 0 0 1 1-1z',
    'M16 4h2a2 2 0 0 1 2 2v14a2 2 0 0 1-2 2H6a2 2 0 0 1-2-2V6a2 2 0 0 1 2-2h2',
    'M8 11h8',
    'M8 16h5',
  ],
  wrench: [
    'M14.7 6.3a1 1 0 0 0 0 1.4l1.6 1.6a1 1 0 0 0 1.4 0l3.8-3.8a6 6 0 0 1-7.9 7.9l-6.9 6.9a2.1 2.1 0 0 1-3-3l6.9-6.9a6 6 0 0 1 7.9-7.9z',
  ],
} as const satisfies Record<IconName, readonly string[]>;

const TONES: Record<string, NodeLook['tone']> = {
  action: 'blue',
  data: 'green',
  logic: 'violet',
  flow: 'teal',
  messaging: 'pink',
  ai: 'violet',
};

/** The look of a step of this type (as GET /node-types describes it); an unknown type gets a grey box. */
export function nodeLook(type: Pick<NodeTypeDescription, 'icon' | 'category'> | undefined): NodeLook {
  return {
    icon: [...(ICONS[type?.icon ?? 'box'] ?? ICONS.box)],
    tone: TONES[type?.category ?? ''] ?? 'gray',
  };
}

/** The trigger's look: every workflow has one, whatever starts it. */
export const TRIGGER_LOOK: NodeLook = { icon: [...ICONS.bolt], tone: 'orange' };

/** A trigger type in words, for the trigger card. */
export const TRIGGER_NAMES: Record<string, string> = {
  manual: 'Manual trigger',
  schedule: 'Schedule',
  webhook: 'Webhook',
  event: 'Event',
  polling: 'Polling',
  chat: 'Chat message',
  tool: 'Tool call (MCP, agents)',
  form: 'Form',
};
