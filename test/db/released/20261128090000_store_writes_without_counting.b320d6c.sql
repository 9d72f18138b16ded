-- Written by hand, as 20261122170000_store_functions: the store's writes without work that grows
-- with a pet's history (docs/benchmarks.md, "Round 12").
--
-- 1. `store_settle` counted a pet's open orders (`count(*)` over all its orders) on every write,
--    although the count decides the status only when the stock is 0. A pet with many orders made
--    every order placed on it slower (pgbench, 32 clients, ~1,700 orders a pet: 1,136 against 2,553
--    statements a second for the hand-written T0 statement). It now asks whether one open order
--    exists, and only when the stock is 0. Its third column (the count) had no reader and is gone.
-- 2. `store_place_order` refuses before it writes anything, so it needs no sub-transaction (an
--    EXCEPTION block is a savepoint on every call) and no rollback of a claimed key: it reads the
--    key first, then locks the pet and its stock row in one statement (both locked, so both values
--    are the newest after a wait), refuses, and only then claims the key and takes the stock. The
--    order is returned from its INSERT instead of read again.
-- The rules are those of 20261122170000_store_functions and docs/store-rules.md, unchanged.

DROP FUNCTION "store_settle"(BIGINT);

-- The automatic transitions after a change of stock or open orders (the pet must be locked):
-- stock > 0 is available; no stock with an open order is pending; a pending pet left with neither is
-- sold; otherwise the status stays. Returns the pet's state after them.
CREATE FUNCTION "store_settle"(p_pet_id BIGINT)
RETURNS TABLE ("status" "PetStatus", "stock" INT)
LANGUAGE plpgsql AS $fn$
#variable_conflict use_column
DECLARE
    v_status "PetStatus";
    v_stock INT;
    v_next "PetStatus";
BEGIN
    SELECT p."status", i."quantity" INTO v_status, v_stock
      FROM "pets" p JOIN "inventory_items" i ON i."pet_id" = p."id"
     WHERE p."id" = p_pet_id;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'pet % vanished while locked', p_pet_id;
    END IF;
    -- CASE evaluates in order: the orders are looked at only when the stock is 0.
    v_next := CASE
        WHEN v_stock > 0 THEN 'available'::"PetStatus"
        WHEN EXISTS (SELECT 1 FROM "orders" o WHERE o."pet_id" = p_pet_id AND NOT o."complete") THEN 'pending'::"PetStatus"
        WHEN v_status = 'pending' THEN 'sold'::"PetStatus"
        ELSE v_status
    END;
    IF v_next <> v_status THEN
        UPDATE "pets" SET "status" = v_next, "updated_at" = now() WHERE "id" = p_pet_id;
    END IF;
    RETURN QUERY SELECT v_next, v_stock;
END
$fn$;

-- A key already used and not expired: the answer it gives (the refusal, or the order it placed), or
-- no row when the key is free.
CREATE FUNCTION "store_used_key"(p_key TEXT, p_fingerprint TEXT)
RETURNS TABLE ("refusal" TEXT, "message" TEXT, "id" BIGINT, "petId" BIGINT, "quantity" INT, "shipDate" TIMESTAMPTZ, "complete" BOOLEAN)
LANGUAGE sql STABLE AS $fn$
    SELECT CASE WHEN k."fingerprint" IS DISTINCT FROM p_fingerprint OR k."order_id" IS NULL THEN 'PS409' END,
           CASE WHEN k."fingerprint" IS DISTINCT FROM p_fingerprint
                    THEN 'Idempotency-Key: this key was already used with a different request'
                WHEN k."order_id" IS NULL
                    THEN 'Idempotency-Key: the order placed with this key has been cancelled' END,
           o."id", o."pet_id", o."quantity", o."ship_date", o."complete"
      FROM "idempotency_keys" k
      LEFT JOIN "orders" o ON o."id" = k."order_id" AND k."fingerprint" IS NOT DISTINCT FROM p_fingerprint
     WHERE k."key" = p_key AND k."expires_at" > now()
$fn$;

-- placeOrder: a key already used answers at once (store_used_key); then the pet and its stock row are
-- locked, and the order refused if it cannot be placed, nothing written; only then is the key
-- claimed (losing the claim means another request with it committed while we waited: answered as a
-- used key, nothing written), the stock taken, the order opened, recorded on the key, and the pet's
-- status settled. Refusals are rows, as before: PS400, PS409, PS410.
CREATE OR REPLACE FUNCTION "store_place_order"(
    p_pet_id BIGINT, p_quantity INT, p_ship_date TIMESTAMPTZ,
    p_key TEXT, p_fingerprint TEXT, p_ttl_seconds DOUBLE PRECISION, p_owner TEXT
)
RETURNS TABLE ("refusal" TEXT, "message" TEXT, "id" BIGINT, "petId" BIGINT, "quantity" INT, "shipDate" TIMESTAMPTZ, "complete" BOOLEAN)
LANGUAGE plpgsql AS $fn$
#variable_conflict use_column
DECLARE
    v_claimed TEXT;
    v_status "PetStatus";
    v_stock INT;
    v_order "orders"%ROWTYPE;
BEGIN
    IF p_key IS NOT NULL THEN
        RETURN QUERY SELECT * FROM "store_used_key"(p_key, p_fingerprint);
        IF FOUND THEN RETURN; END IF;
    END IF;
    -- Both rows locked, pet first (the order of every store write): after a wait for another
    -- writer, both values are the ones it committed.
    SELECT p."status", i."quantity" INTO v_status, v_stock
      FROM "pets" p JOIN "inventory_items" i ON i."pet_id" = p."id" WHERE p."id" = p_pet_id
       FOR UPDATE;
    IF NOT FOUND THEN
        IF EXISTS (SELECT 1 FROM "pets" p WHERE p."id" = p_pet_id) THEN
            RETURN QUERY SELECT 'PS410'::text, format('Pet %s has no stock', p_pet_id),
                NULL::BIGINT, NULL::BIGINT, NULL::INT, NULL::TIMESTAMPTZ, NULL::BOOLEAN;
        ELSE
            RETURN QUERY SELECT 'PS400'::text, format('petId: pet %s does not exist', p_pet_id),
                NULL::BIGINT, NULL::BIGINT, NULL::INT, NULL::TIMESTAMPTZ, NULL::BOOLEAN;
        END IF;
        RETURN;
    END IF;
    IF v_status <> 'available' THEN
        RETURN QUERY SELECT 'PS410'::text, format('Pet %s is %s: none left to order', p_pet_id, v_status),
            NULL::BIGINT, NULL::BIGINT, NULL::INT, NULL::TIMESTAMPTZ, NULL::BOOLEAN;
        RETURN;
    END IF;
    IF v_stock < p_quantity THEN
        RETURN QUERY SELECT 'PS410'::text, format('Pet %s has %s in stock; %s ordered', p_pet_id, v_stock, p_quantity),
            NULL::BIGINT, NULL::BIGINT, NULL::INT, NULL::TIMESTAMPTZ, NULL::BOOLEAN;
        RETURN;
    END IF;
    IF p_key IS NOT NULL THEN
        INSERT INTO "idempotency_keys" AS k ("key", "fingerprint", "created_at", "expires_at")
        VALUES (p_key, p_fingerprint, now(), now() + make_interval(secs => p_ttl_seconds))
        ON CONFLICT ("key") DO UPDATE
            SET "fingerprint" = EXCLUDED."fingerprint", "order_id" = NULL,
                "created_at" = EXCLUDED."created_at", "expires_at" = EXCLUDED."expires_at"
            WHERE k."expires_at" <= now()
        RETURNING k."key" INTO v_claimed;
        IF v_claimed IS NULL THEN
            RETURN QUERY SELECT * FROM "store_used_key"(p_key, p_fingerprint);
            IF NOT FOUND THEN
                RAISE EXCEPTION 'Idempotency-Key % neither free nor in use', p_key;
            END IF;
            RETURN;
        END IF;
    END IF;
    UPDATE "inventory_items" i SET "quantity" = i."quantity" - p_quantity, "updated_at" = now()
     WHERE i."pet_id" = p_pet_id;
    INSERT INTO "orders" AS o ("pet_id", "quantity", "ship_date", "complete", "owner", "updated_at")
    VALUES (p_pet_id, p_quantity, p_ship_date, false, p_owner, now())
    RETURNING o.* INTO v_order;
    IF p_key IS NOT NULL THEN
        UPDATE "idempotency_keys" k SET "order_id" = v_order."id" WHERE k."key" = p_key;
    END IF;
    PERFORM "store_settle"(p_pet_id);
    RETURN QUERY SELECT NULL::text, NULL::text, v_order."id", v_order."pet_id", v_order."quantity",
                        v_order."ship_date", v_order."complete";
END
$fn$;
