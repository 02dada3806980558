import { ApiKeyEntity } from '../modules/auth/api-key.entity';
import { LoginFailureEntity } from '../modules/auth/login-failure.entity';
import { UserEntity } from '../modules/auth/user.entity';
import { OrganisationEntity } from '../modules/organisations/organisation.entity';

/** Every entity; migrations in migrations/{sqlite,mysql} are generated from these (scripts/generate-migration.ts). */
export const ENTITIES = [OrganisationEntity, UserEntity, ApiKeyEntity, LoginFailureEntity];
