/**
 * `npm run db:seed`: a realistic demo catalogue in the configured database, through the services (so
 * the same rules apply). Refuses to run on a database that already has categories.
 */
import 'reflect-metadata';
import { loadConfig, readEnvFile } from '../src/config';
import { openDatabase } from '../src/db/open';
import { createServices } from '../src/services';
import { explainStartupError } from '../src/startup';

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

async function main(): Promise<void> {
  readEnvFile();
  const db = await openDatabase(loadConfig(), { progress: (msg) => console.log(msg) });
  try {
    if ((await db.prisma.category.count()) > 0) {
      console.log('the database already has categories; seeding skipped');
      return;
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
    console.log(`seeded ${Object.keys(CATALOGUE).length} categories and ${pets} pets`);
  } finally {
    await db.close();
  }
}

main().catch((error: unknown) => {
  console.error(explainStartupError(error) ?? (error instanceof Error ? error.message : error));
  process.exit(1);
});
