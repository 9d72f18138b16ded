import { registerEnumType } from 'type-graphql';
import { PetStatus as DbPetStatus } from '../../generated/prisma/client';

/** The spec's pet statuses (stored lowercase, as the spec and REST write them). */
export type PetStatus = DbPetStatus;

/** GraphQL names (AVAILABLE...) mapped to the stored values (available...). */
export const PetStatusEnum = {
  AVAILABLE: DbPetStatus.available,
  PENDING: DbPetStatus.pending,
  SOLD: DbPetStatus.sold,
} as const;

export const PET_STATUSES: readonly PetStatus[] = Object.values(PetStatusEnum);

registerEnumType(PetStatusEnum, {
  name: 'PetStatus',
  description: "Sales status of a pet (the spec's available | pending | sold).",
});
