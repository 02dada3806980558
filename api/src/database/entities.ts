import { EsignTransactionEntity } from '../modules/aadhaar/esign-transaction.entity';
import { SandboxSessionEntity } from '../modules/aadhaar/sandbox/sandbox-session.entity';
import { ApiKeyEntity } from '../modules/auth/api-key.entity';
import { DscAgentSessionEntity } from '../modules/dsc/dsc-agent-session.entity';
import { LoginFailureEntity } from '../modules/auth/login-failure.entity';
import { PasswordLinkEntity } from '../modules/auth/password-link.entity';
import { UserEntity } from '../modules/auth/user.entity';
import { AuditEventEntity } from '../modules/audit/audit-event.entity';
import { JobEntity } from '../modules/jobs/job.entity';
import { OutboxMessageEntity } from '../modules/notifications/outbox-message.entity';
import { OrganisationEntity } from '../modules/organisations/organisation.entity';
import { RecipientListLoginEntity } from '../modules/recipient-list/recipient-list-login.entity';
import { OtpEntity } from '../modules/otp/otp.entity';
import { SignerSessionEntity } from '../modules/recipients/signer-session.entity';
import { PartyEntity } from '../modules/requests/party.entity';
import { RequestEntity } from '../modules/requests/request.entity';
import { AppSecretEntity } from '../modules/secrets/app-secret.entity';
import { ExternalSignatureEntity } from '../modules/signing/external-signature.entity';
import { PkiAuthorityEntity } from '../modules/signing/pki/pki-authority.entity';
import { PkiCertificateEntity } from '../modules/signing/pki/pki-certificate.entity';
import { SealKeyEntity } from '../modules/signing/pki/seal-key.entity';
import { TemplateEntity } from '../modules/templates/template.entity';
import { WatchdogFindingEntity } from '../modules/watchdog/watchdog-finding.entity';
import { WebhookDeliveryEntity } from '../modules/webhooks/webhook-delivery.entity';
import { WebhookEntity } from '../modules/webhooks/webhook.entity';

/** Every entity; migrations in migrations/{sqlite,mysql} are generated from these (scripts/generate-migration.ts). */
export const ENTITIES = [
  OrganisationEntity,
  UserEntity,
  ApiKeyEntity,
  LoginFailureEntity,
  PasswordLinkEntity,
  RequestEntity,
  PartyEntity,
  TemplateEntity,
  AuditEventEntity,
  JobEntity,
  OutboxMessageEntity,
  WebhookEntity,
  WebhookDeliveryEntity,
  AppSecretEntity,
  OtpEntity,
  SealKeyEntity,
  EsignTransactionEntity,
  SandboxSessionEntity,
  DscAgentSessionEntity,
  SignerSessionEntity,
  ExternalSignatureEntity,
  RecipientListLoginEntity,
  PkiAuthorityEntity,
  PkiCertificateEntity,
  WatchdogFindingEntity,
];
