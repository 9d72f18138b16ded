-- Issue 31, "Shoppers sign in": orders carry their owner, the caller that placed them
-- (src/modules/auth/caller.ts, `callerIdentity`: `sub:<issuer> <sub>` for a signed-in customer,
-- `key:<id>` for an API key). Orders placed before this migration have none: only staff (scope
-- orders:read) see them. The column and index were authored with `prisma migrate diff`; the
-- functions below are written by hand, as in 20261122170000_store_functions.

-- AlterTable
ALTER TABLE "orders" ADD COLUMN     "owner" VARCHAR(600);

-- CreateIndex
CREATE INDEX "orders_owner_id_idx" ON "orders"("owner", "id");

-- placeOrder records the owner (p_owner; NULL for none).
CREATE FUNCTION "store_place_order"(
    p_pet_id BIGINT, p_quantity INT, p_ship_date TIMESTAMPTZ,
    p_key TEXT, p_fingerprint TEXT, p_ttl_seconds DOUBLE PRECISION, p_owner TEXT
)
RETURNS TABLE ("refusal" TEXT, "message" TEXT, "id" BIGINT, "petId" BIGINT, "quantity" INT, "shipDate" TIMESTAMPTZ, "complete" BOOLEAN)
LANGUAGE plpgsql AS $fn$
#variable_conflict use_column
DECLARE
    v_order_id BIGINT;
    v_claimed TEXT;
    v_print TEXT;
    v_existing BIGINT;
    v_status "PetStatus";
    v_stock INT;
BEGIN
    BEGIN
        IF p_key IS NOT NULL THEN
            INSERT INTO "idempotency_keys" AS k ("key", "fingerprint", "created_at", "expires_at")
            VALUES (p_key, p_fingerprint, now(), now() + make_interval(secs => p_ttl_seconds))
            ON CONFLICT ("key") DO UPDATE
                SET "fingerprint" = EXCLUDED."fingerprint", "order_id" = NULL,
                    "created_at" = EXCLUDED."created_at", "expires_at" = EXCLUDED."expires_at"
                WHERE k."expires_at" <= now()
            RETURNING k."key" INTO v_claimed;
            IF v_claimed IS NULL THEN
                SELECT k."fingerprint", k."order_id" INTO v_print, v_existing FROM "idempotency_keys" k WHERE k."key" = p_key;
                IF v_print IS DISTINCT FROM p_fingerprint THEN
                    RAISE EXCEPTION 'Idempotency-Key: this key was already used with a different request' USING ERRCODE = 'PS409';
                END IF;
                IF v_existing IS NULL THEN
                    RAISE EXCEPTION 'Idempotency-Key: the order placed with this key has been cancelled' USING ERRCODE = 'PS409';
                END IF;
                v_order_id := v_existing;
            END IF;
        END IF;
        IF v_order_id IS NULL THEN
            PERFORM 1 FROM "pets" p WHERE p."id" = p_pet_id FOR UPDATE;
            IF NOT FOUND THEN
                RAISE EXCEPTION 'petId: pet % does not exist', p_pet_id USING ERRCODE = 'PS400';
            END IF;
            -- A statement of its own after the lock: it sees everything committed before the lock was granted.
            SELECT p."status", i."quantity" INTO v_status, v_stock
              FROM "pets" p JOIN "inventory_items" i ON i."pet_id" = p."id" WHERE p."id" = p_pet_id;
            IF v_status <> 'available' THEN
                RAISE EXCEPTION 'Pet % is %: none left to order', p_pet_id, v_status USING ERRCODE = 'PS410';
            END IF;
            UPDATE "inventory_items" i SET "quantity" = i."quantity" - p_quantity, "updated_at" = now()
             WHERE i."pet_id" = p_pet_id AND i."quantity" >= p_quantity;
            IF NOT FOUND THEN
                RAISE EXCEPTION 'Pet % has % in stock; % ordered', p_pet_id, v_stock, p_quantity USING ERRCODE = 'PS410';
            END IF;
            INSERT INTO "orders" AS o ("pet_id", "quantity", "ship_date", "complete", "owner", "updated_at")
            VALUES (p_pet_id, p_quantity, p_ship_date, false, p_owner, now())
            RETURNING o."id" INTO v_order_id;
            IF p_key IS NOT NULL THEN
                UPDATE "idempotency_keys" k SET "order_id" = v_order_id WHERE k."key" = p_key;
            END IF;
            PERFORM "store_settle"(p_pet_id);
        END IF;
    EXCEPTION WHEN SQLSTATE 'PS400' OR SQLSTATE 'PS409' OR SQLSTATE 'PS410' THEN
        RETURN QUERY SELECT SQLSTATE::text, SQLERRM::text, NULL::BIGINT, NULL::BIGINT, NULL::INT, NULL::TIMESTAMPTZ, NULL::BOOLEAN;
        RETURN;
    END;
    RETURN QUERY SELECT NULL::text, NULL::text, o."id", o."pet_id", o."quantity", o."ship_date", o."complete"
                   FROM "orders" o WHERE o."id" = v_order_id;
END
$fn$;

-- complete/cancel with an owner (p_owner): an order of another owner is NOT_FOUND, nothing changed.
-- NULL: any order (staff).
CREATE FUNCTION "store_finish_order"(p_order_id BIGINT, p_action TEXT, p_owner TEXT)
RETURNS TABLE ("refusal" TEXT, "message" TEXT, "id" BIGINT, "petId" BIGINT, "quantity" INT, "shipDate" TIMESTAMPTZ, "complete" BOOLEAN)
LANGUAGE plpgsql AS $fn$
#variable_conflict use_column
DECLARE
    v_pet BIGINT;
    v_complete BOOLEAN;
    v_order "orders"%ROWTYPE;
    v_done TEXT := CASE WHEN p_action = 'complete'
        THEN format('Order %s is already complete', p_order_id)
        ELSE format('Order %s is complete; a complete order cannot be cancelled', p_order_id) END;
BEGIN
    -- Another owner's order does not exist for this caller (p_owner NULL: any order, staff).
    SELECT o."pet_id", o."complete" INTO v_pet, v_complete FROM "orders" o
     WHERE o."id" = p_order_id AND (p_owner IS NULL OR o."owner" = p_owner);
    IF NOT FOUND THEN
        RETURN QUERY SELECT 'PS404'::text, format('Order %s not found', p_order_id), NULL::BIGINT, NULL::BIGINT, NULL::INT, NULL::TIMESTAMPTZ, NULL::BOOLEAN;
        RETURN;
    END IF;
    IF v_complete THEN
        RETURN QUERY SELECT 'PS422'::text, v_done, NULL::BIGINT, NULL::BIGINT, NULL::INT, NULL::TIMESTAMPTZ, NULL::BOOLEAN;
        RETURN;
    END IF;
    -- An open order always has its pet (a pet with open orders cannot be deleted).
    IF v_pet IS NOT NULL THEN
        PERFORM 1 FROM "pets" p WHERE p."id" = v_pet FOR UPDATE;
    END IF;
    IF p_action = 'complete' THEN
        UPDATE "orders" o SET "complete" = true, "ship_date" = COALESCE(o."ship_date", now()), "updated_at" = now()
         WHERE o."id" = p_order_id AND NOT o."complete" RETURNING o.* INTO v_order;
    ELSE
        DELETE FROM "orders" o WHERE o."id" = p_order_id AND NOT o."complete" RETURNING o.* INTO v_order;
    END IF;
    IF v_order."id" IS NULL THEN
        -- Someone else got there first: say why. Nothing was written.
        IF EXISTS (SELECT 1 FROM "orders" o WHERE o."id" = p_order_id) THEN
            RETURN QUERY SELECT 'PS422'::text, v_done, NULL::BIGINT, NULL::BIGINT, NULL::INT, NULL::TIMESTAMPTZ, NULL::BOOLEAN;
        ELSE
            RETURN QUERY SELECT 'PS404'::text, format('Order %s not found', p_order_id), NULL::BIGINT, NULL::BIGINT, NULL::INT, NULL::TIMESTAMPTZ, NULL::BOOLEAN;
        END IF;
        RETURN;
    END IF;
    IF v_pet IS NOT NULL THEN
        IF p_action = 'cancel' THEN
            UPDATE "inventory_items" i SET "quantity" = i."quantity" + v_order."quantity", "updated_at" = now() WHERE i."pet_id" = v_pet;
        END IF;
        PERFORM "store_settle"(v_pet);
    END IF;
    RETURN QUERY SELECT NULL::text, NULL::text, v_order."id", v_order."pet_id", v_order."quantity", v_order."ship_date", v_order."complete";
END
$fn$;

-- The functions of 20261122170000_store_functions keep their signatures (a server of the previous
-- release, during a rolling deploy, still calls them) as wrappers of the ones above, so that the
-- rules exist once.
CREATE OR REPLACE FUNCTION "store_place_order"(
    p_pet_id BIGINT, p_quantity INT, p_ship_date TIMESTAMPTZ,
    p_key TEXT, p_fingerprint TEXT, p_ttl_seconds DOUBLE PRECISION
)
RETURNS TABLE ("refusal" TEXT, "message" TEXT, "id" BIGINT, "petId" BIGINT, "quantity" INT, "shipDate" TIMESTAMPTZ, "complete" BOOLEAN)
LANGUAGE sql AS $fn$
    SELECT * FROM "store_place_order"(p_pet_id, p_quantity, p_ship_date, p_key, p_fingerprint, p_ttl_seconds, NULL::text)
$fn$;

CREATE OR REPLACE FUNCTION "store_finish_order"(p_order_id BIGINT, p_action TEXT)
RETURNS TABLE ("refusal" TEXT, "message" TEXT, "id" BIGINT, "petId" BIGINT, "quantity" INT, "shipDate" TIMESTAMPTZ, "complete" BOOLEAN)
LANGUAGE sql AS $fn$
    SELECT * FROM "store_finish_order"(p_order_id, p_action, NULL::text)
$fn$;

-- Order events carry the owner, so a customer's subscription delivers their own orders' events only
-- (src/modules/orders/order.access.ts).
CREATE OR REPLACE FUNCTION "store_events_order"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    o "orders";
    kind text;
BEGIN
    IF TG_OP = 'INSERT' THEN
        o := NEW; kind := 'placed';
    ELSIF TG_OP = 'UPDATE' THEN
        IF NOT (NEW."complete" AND NOT OLD."complete") THEN RETURN NULL; END IF;
        o := NEW; kind := 'completed';
    ELSE
        -- Only open orders are cancelled (deleted); nothing else deletes orders.
        IF OLD."complete" THEN RETURN NULL; END IF;
        o := OLD; kind := 'cancelled';
    END IF;
    PERFORM pg_notify('store_events', json_build_object(
        'type', 'order', 'kind', kind,
        'order', json_build_object(
            'id', o."id"::text, 'petId', o."pet_id"::text, 'quantity', o."quantity",
            'shipDate', o."ship_date", 'complete', o."complete", 'owner', o."owner")
    )::text);
    RETURN NULL;
END $$;
