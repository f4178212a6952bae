/**
 * The built-in trigger events (spec "Trigger events"), with what each means and an example payload.
 * Payloads are free-form JSON objects: the examples show the fields Weft itself reads (`cart_id`) or
 * sends (`scheduled_at`, the execution summary of error.critical) and typical fields otherwise.
 */
export interface CatalogEvent {
  name: string;
  category: string;
  description: string;
  example_payload: Record<string, unknown>;
}

export const EVENT_CATALOG: readonly CatalogEvent[] = [
  {
    name: 'lead.created',
    category: 'Lead',
    description: 'A new lead was captured (form, landing page, CRM).',
    example_payload: { lead_id: 'L-1001', name: 'Ada Lovelace', email: 'ada@example.com', source: 'website' },
  },
  {
    name: 'order.created',
    category: 'Order',
    description: 'An order was placed. With a cart_id, it also stops that cart’s abandonment timer.',
    example_payload: { order_id: 'O-2001', cart_id: 'C-77', total: 129.9, currency: 'EUR' },
  },
  {
    name: 'order.shipped',
    category: 'Order',
    description: 'An order left the warehouse.',
    example_payload: { order_id: 'O-2001', carrier: 'DHL', tracking_number: 'JD014600003SE' },
  },
  {
    name: 'order.delivered',
    category: 'Order',
    description: 'An order reached the customer.',
    example_payload: { order_id: 'O-2001', delivered_at: '2026-03-02T14:05:00.000Z' },
  },
  {
    name: 'cart.abandoned',
    category: 'Cart',
    description:
      'Fired by Weft when a cart had no cart.* event for the organization’s inactivity period ' +
      '(settings.cart_inactivity_minutes, default 60); the payload is the last cart event’s payload.',
    example_payload: { cart_id: 'C-77', customer_email: 'ada@example.com', items: 3, total: 129.9 },
  },
  {
    name: 'payment.received',
    category: 'Payment',
    description: 'A payment was received.',
    example_payload: { payment_id: 'P-3001', order_id: 'O-2001', amount: 129.9, currency: 'EUR' },
  },
  {
    name: 'invoice.created',
    category: 'Invoice',
    description: 'An invoice was issued.',
    example_payload: { invoice_id: 'INV-4001', customer_id: 'CU-9', amount: 500, due_date: '2026-04-01' },
  },
  {
    name: 'invoice.overdue',
    category: 'Invoice',
    description: 'An invoice passed its due date unpaid.',
    example_payload: { invoice_id: 'INV-4001', customer_id: 'CU-9', amount: 500, days_overdue: 7 },
  },
  {
    name: 'ticket.created',
    category: 'Ticket',
    description: 'A support ticket was opened.',
    example_payload: { ticket_id: 'T-5001', subject: 'Cannot log in', priority: 'high' },
  },
  {
    name: 'ticket.resolved',
    category: 'Ticket',
    description: 'A support ticket was resolved.',
    example_payload: { ticket_id: 'T-5001', resolved_by: 'agent-12' },
  },
  {
    name: 'shipment.status_changed',
    category: 'Shipment',
    description: 'A shipment moved to a new status.',
    example_payload: { shipment_id: 'S-6001', order_id: 'O-2001', status: 'in_transit' },
  },
  {
    name: 'chat.message_received',
    category: 'Chat',
    description: 'An inbound chat message arrived (chat module); it also reopens the 24-hour window.',
    example_payload: { conversation_id: 'CV-1', from: '+4915112345678', text: 'Hi, where is my order?' },
  },
  {
    name: 'webhook.received',
    category: 'Webhook',
    description:
      'A JSON body was POSTed to a workflow’s inbound hook URL ({site_url}/api/hooks/<token>); the ' +
      'payload is that body.',
    example_payload: { any: 'JSON object the sender posted' },
  },
  {
    name: 'trigger.polling',
    category: 'Polling',
    description: 'A polling trigger found a new item; the payload is the item.',
    example_payload: { id: 42, title: 'New row in the polled feed' },
  },
  {
    name: 'employee.hired',
    category: 'HR',
    description: 'A new employee was hired.',
    example_payload: { employee_id: 'E-7001', name: 'Grace Hopper', start_date: '2026-05-01' },
  },
  {
    name: 'error.critical',
    category: 'System',
    description:
      'Fired by Weft when an execution fails; the payload is the execution summary. Never fires for ' +
      'executions of workflows triggered by error.critical.',
    example_payload: {
      execution_id: '0190b6a4-1111-7222-8333-444455556666',
      workflow_id: '0190b6a4-2222-7222-8333-444455556666',
      status: 'failed',
    },
  },
  {
    name: 'scheduled.*',
    category: 'Scheduled',
    description:
      'Fired by a workflow’s cron schedule as scheduled.<workflow_id>; `scheduled.*` matches every ' +
      'schedule.',
    example_payload: { scheduled_at: '2026-03-02T08:00:00.000Z' },
  },
];
