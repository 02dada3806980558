import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { isEmail } from '@esign/contract';
import { randomUUID } from 'node:crypto';
import { Repository } from 'typeorm';
import { AppError } from '../../common/app-error';
import { Clock } from '../../common/clock';
import { OrganisationsService } from '../organisations/organisations.service';
import { hashPassword } from './secrets';
import { UserEntity } from './user.entity';

export const USERNAME_PATTERN = /^[a-z0-9][a-z0-9._@-]{2,63}$/;
export const MIN_PASSWORD_LENGTH = 8;

@Injectable()
export class UsersService {
  private dummy?: Promise<string>;

  constructor(
    @InjectRepository(UserEntity) private readonly users: Repository<UserEntity>,
    private readonly organisations: OrganisationsService,
    private readonly clock: Clock,
  ) {}

  findByUsername(username: string): Promise<UserEntity | null> {
    return this.users.findOne({ where: { username: username.toLowerCase() } });
  }

  findById(id: string): Promise<UserEntity | null> {
    return this.users.findOne({ where: { id } });
  }

  /** A real argon2id hash of a random password, computed once, to verify against for unknown usernames. */
  dummyHash(): Promise<string> {
    this.dummy ??= hashPassword(randomUUID());
    return this.dummy;
  }

  async create(
    orgId: string,
    rawUsername: string,
    password: string,
    rawEmail?: string | null,
  ): Promise<{ id: string; username: string; orgId: string; email: string | null }> {
    const username = rawUsername.trim().toLowerCase();
    const email = checkEmail(rawEmail);
    if (!USERNAME_PATTERN.test(username)) {
      throw new AppError(
        'VALIDATION_FAILED',
        'A username is 3 to 64 characters: letters, digits, dot, underscore, @ or hyphen, starting with a letter or digit.',
      );
    }
    assertPassword(password);
    await this.organisations.getEntity(orgId);
    if (await this.findByUsername(username)) throw new AppError('CONFLICT', `The username '${username}' is taken.`);
    const now = this.clock.now();
    const user = {
      id: randomUUID(),
      orgId,
      username,
      email,
      passwordHash: await hashPassword(password),
      disabled: false,
      createdAt: now,
      updatedAt: now,
    };
    await this.users.insert(user);
    return { id: user.id, username, orgId, email };
  }

  /** Sets (or with null, removes) the address the product writes to the user at. */
  async setEmail(rawUsername: string, rawEmail: string | null): Promise<{ username: string; email: string | null }> {
    const email = checkEmail(rawEmail);
    const user = await this.findByUsername(rawUsername.trim());
    if (!user) throw new AppError('NOT_FOUND', `No user '${rawUsername}'.`);
    await this.users.update({ id: user.id }, { email, updatedAt: this.clock.now() });
    return { username: user.username, email };
  }

  async setPassword(rawUsername: string, password: string): Promise<void> {
    assertPassword(password);
    const user = await this.findByUsername(rawUsername.trim());
    if (!user) throw new AppError('NOT_FOUND', `No user '${rawUsername}'.`);
    await this.users.update(
      { id: user.id },
      { passwordHash: await hashPassword(password), updatedAt: this.clock.now() },
    );
  }
}

/** A staff user's e-mail address: trimmed, as typed (null for none); refused when it does not look like one. */
function checkEmail(raw: string | null | undefined): string | null {
  if (raw === undefined || raw === null) return null;
  const email = String(raw).trim();
  if (!email) return null;
  if (!isEmail(email)) throw new AppError('VALIDATION_FAILED', `'${email}' is not a valid e-mail address.`);
  return email;
}

function assertPassword(password: string): void {
  if (typeof password !== 'string' || password.length < MIN_PASSWORD_LENGTH || password.length > 256) {
    throw new AppError('VALIDATION_FAILED', `A password is ${MIN_PASSWORD_LENGTH} to 256 characters.`);
  }
}
