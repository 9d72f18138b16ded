-- Written by hand, as 20261128090000_store_writes_without_counting. That migration's file was edited
-- after a release had applied it (the edit below: a keyed placeOrder asks for its key again once it
-- holds the pet's lock, so concurrent retries of one key for the last unit all get the one order
-- instead of OUT_OF_STOCK). A database migrated by that release keeps the first version of the
-- function, and its recorded checksum is accepted as a released one (src/db/migrate.ts,
-- RELEASED_EARLIER); this migration brings the function there. Anywhere else it replaces the
-- function with itself.

-- placeOrder: a key already used answers at once (store_used_key), and again once the pet and its
-- stock row are locked; then the order is refused if it cannot be placed, nothing written; only then is the key
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
    v_locked BOOLEAN;
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
    v_locked := FOUND;
    -- A request with the same key that held the lock before us has committed by now: its answer,
    -- not a refusal its own order caused (the last unit, taken by it).
    IF v_locked AND p_key IS NOT NULL THEN
        RETURN QUERY SELECT * FROM "store_used_key"(p_key, p_fingerprint);
        IF FOUND THEN RETURN; END IF;
    END IF;
    IF NOT v_locked THEN
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
