/**
 * The demo catalogue of `npm run db:seed`: five categories, seventeen pets with stock, two orders,
 * created through the services (so the same rules apply). Run by the seed script on a database it can
 * open, or by a running server on the embedded database when the script asks it to (the admin socket,
 * modules/auth/api-key.socket.ts), so seeding works before and after `npm start` alike.
 */
import type { Database } from '../db/database';
import { createServices } from './services';

const CATALOGUE: Record<string, { description: string; pets: [string, number][] }> = {
  Dogs: {
    description: 'Loyal companions of every size',
    pets: [
      ['Rex', 3],
      ['Bella', 1],
      ['Max', 0],
      ['Luna', 5],
      ['Charlie', 2],
    ],
  },
  Cats: {
    description: 'Independent and curious',
    pets: [
      ['Milo', 4],
      ['Kitty', 2],
      ['Oliver', 1],
      ['Nala', 0],
    ],
  },
  Birds: {
    description: 'Songbirds and talkers',
    pets: [
      ['Tweety', 6],
      ['Kiwi', 3],
      ['Rio', 2],
    ],
  },
  Fish: {
    description: 'Freshwater and marine',
    pets: [
      ['Nemo', 12],
      ['Dory', 8],
      ['Bubbles', 20],
    ],
  },
  Reptiles: {
    description: 'Scales and patience',
    pets: [
      ['Spike', 1],
      ['Rango', 2],
    ],
  },
};

/**
 * Seeds the demo catalogue into `db` unless it already has categories; returns the line to print
 * (what was seeded, or that seeding was skipped).
 */
export async function seedDemoData(db: Database): Promise<string> {
  if ((await db.prisma.category.count()) > 0) {
    return 'the database already has categories; seeding skipped';
  }
  const services = createServices(db);
  let pets = 0;
  for (const [name, { description, pets: list }] of Object.entries(CATALOGUE)) {
    const category = await services.categories.create({ name, description });
    for (const [petName, stock] of list) {
      const pet = await services.pets.create({ name: petName, categoryId: category.id });
      await services.inventory.update(pet.id, { quantity: stock });
      pets++;
    }
  }
  // Orders through the store rules: a completed one, and an open one holding a pet's last unit (so
  // the demo shows a pending pet).
  const [rex, bella] = await db.prisma.pet.findMany({ take: 2, orderBy: { id: 'asc' } });
  if (rex && bella) {
    const shipped = await services.orders.place({ petId: rex.id, quantity: 1 });
    await services.orders.complete(shipped.id);
    await services.orders.place({ petId: bella.id, quantity: 1 });
  }
  return `seeded ${Object.keys(CATALOGUE).length} categories and ${pets} pets`;
}
