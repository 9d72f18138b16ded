-- CreateTable
CREATE TABLE "idempotency_keys" (
    "key" VARCHAR(255) NOT NULL,
    "fingerprint" CHAR(64) NOT NULL,
    "order_id" BIGINT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "idempotency_keys_pkey" PRIMARY KEY ("key")
);

-- CreateIndex
CREATE INDEX "idempotency_keys_expires_at_idx" ON "idempotency_keys"("expires_at");

-- CreateIndex
CREATE INDEX "idempotency_keys_order_id_idx" ON "idempotency_keys"("order_id");

-- AddForeignKey
ALTER TABLE "idempotency_keys" ADD CONSTRAINT "idempotency_keys_order_id_fkey" FOREIGN KEY ("order_id") REFERENCES "orders"("id") ON DELETE SET NULL ON UPDATE CASCADE;


-- Written by hand (Prisma's schema language has no CHECK constraints): the database itself refuses
-- negative stock and empty orders, whatever code writes them (README, "Store rules").
ALTER TABLE "inventory_items" ADD CONSTRAINT "inventory_items_quantity_check" CHECK ("quantity" >= 0);
ALTER TABLE "orders" ADD CONSTRAINT "orders_quantity_check" CHECK ("quantity" > 0);

-- Written by hand: pets saved before the store rules are brought into the pet-status lifecycle.
-- In stock is available; no stock with open orders is pending; a pending pet with neither is sold.
UPDATE "pets" AS p
SET "status" = s.next, "updated_at" = CURRENT_TIMESTAMP
FROM (
    SELECT q."id", CASE
        WHEN i."quantity" > 0 THEN 'available'::"PetStatus"
        WHEN EXISTS (SELECT 1 FROM "orders" o WHERE o."pet_id" = q."id" AND NOT o."complete") THEN 'pending'::"PetStatus"
        WHEN q."status" = 'pending' THEN 'sold'::"PetStatus"
        ELSE q."status"
    END AS next
    FROM "pets" q JOIN "inventory_items" i ON i."pet_id" = q."id"
) AS s
WHERE s."id" = p."id" AND s.next <> p."status";
