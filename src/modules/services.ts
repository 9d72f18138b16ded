/**
 * The service layer: the only code that talks to the database (Prisma for transactions and other
 * writes, the SQL reader for reads, the writer for the store functions' one-statement writes), and
 * the one home of every business rule. GraphQL resolvers and REST routes both call these.
 */
import type { Database, SqlReader } from '../db/database';
import type { ApiKeyCache } from './auth/api-key.cache';
import { ApiKeyService } from './auth/api-key.service';
import { CategoryService } from './categories/category.service';
import { InventoryService } from './inventory/inventory.service';
import { OrderService } from './orders/order.service';
import { PetService } from './pets/pet.service';

export interface Services {
  categories: CategoryService;
  pets: PetService;
  orders: OrderService;
  inventory: InventoryService;
  apiKeys: ApiKeyService;
  /** The SQL reader itself, for the statements of the read compiler (src/read/compiler.ts). */
  reader: SqlReader;
}

export interface ServiceOptions {
  /** The serving app's cache of authenticated keys (none: every key is read from the database). */
  apiKeyCache?: ApiKeyCache;
}

export function createServices(
  { prisma, sql, writer }: Pick<Database, 'prisma' | 'sql' | 'writer'>,
  { apiKeyCache }: ServiceOptions = {},
): Services {
  return {
    categories: new CategoryService(prisma, sql),
    pets: new PetService(prisma, sql),
    orders: new OrderService(prisma, sql, writer),
    inventory: new InventoryService(sql, writer),
    apiKeys: new ApiKeyService(prisma, apiKeyCache),
    reader: sql,
  };
}
