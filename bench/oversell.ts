/**
 * W4's check: placing orders must never oversell. Before any order is placed the stock of the 100 W4
 * pets and the highest order id are noted; afterwards, for every one of those pets, the stock left
 * plus the quantities of the orders placed since must equal the stock before, and no stock is
 * negative (a conditional update that raced would show here).
 */
import { Client } from 'pg';
import { DATA } from './seed';

export type W4Snapshot = Awaited<ReturnType<typeof snapshotW4>>;

export async function snapshotW4(url: string) {
  const c = new Client({ connectionString: url });
  await c.connect();
  try {
    const { rows } = await c.query<{ max: string | null }>('SELECT max(id)::text AS max FROM orders');
    const stock = await c.query<{ pet_id: string; quantity: number }>(
      'SELECT pet_id::text, quantity FROM inventory_items WHERE pet_id <= $1',
      [DATA.w4Pets],
    );
    return { maxOrderId: rows[0]?.max ?? '0', stock: new Map(stock.rows.map((r) => [r.pet_id, r.quantity])) };
  } finally {
    await c.end();
  }
}

export async function checkOversell(url: string, before: W4Snapshot, responses: number) {
  const c = new Client({ connectionString: url });
  await c.connect();
  try {
    const { rows } = await c.query<{ pet_id: string; quantity: number; ordered: string; orders: string }>(
      `SELECT i.pet_id::text, i.quantity, COALESCE(SUM(o.quantity), 0)::text AS ordered, count(o.id)::text AS orders
       FROM inventory_items i LEFT JOIN orders o ON o.pet_id = i.pet_id AND o.id > $2
       WHERE i.pet_id <= $1 GROUP BY i.pet_id, i.quantity`,
      [DATA.w4Pets, before.maxOrderId],
    );
    const broken = rows.filter((r) => r.quantity < 0 || r.quantity + Number(r.ordered) !== before.stock.get(r.pet_id));
    const placed = rows.reduce((n, r) => n + Number(r.orders), 0);
    const negative = rows.filter((r) => r.quantity < 0).length;
    return {
      pets: rows.length,
      ordersPlaced: placed,
      okResponses: responses,
      negativeStock: negative,
      conserved: broken.length === 0,
      ok: broken.length === 0 && negative === 0,
      broken: broken.slice(0, 5),
    };
  } finally {
    await c.end();
  }
}
