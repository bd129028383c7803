// What other folders import from auth/.
export type { UserInfo } from './user.ts';
export { ensureAdminToken, parseTokenFile } from './token-file.ts';
export type { Authenticated, AuthenticationRequest, Authenticator, ClientCertificate, TokenAuthenticator } from './authenticate.ts';
export {
  AuthenticationFailure, anonymousUser, audienceAgnostic, bearerToken, bearerTokenAuthenticator, requestAuthenticator, tokenFileAuthenticator, unionTokenAuthenticator,
} from './authenticate.ts';
export { clientCertificateAuthenticator, credentialIdKey } from './x509.ts';
export type { ServiceAccountKeys, SigningKey, VerificationKey } from './service-account-keys.ts';
export { defaultSigningKeyPath, keyIdOf, lazyServiceAccountKeys, loadServiceAccountKeys, openIdConfiguration, publicJwks } from './service-account-keys.ts';
export type { BoundObject, ObjectRef, ServiceAccountTokenGetter, TokenClaimsRequest } from './service-account-token.ts';
export { extendedTokenExpirationSeconds, issueServiceAccountToken, legacyIssuer, legacyServiceAccountTokenAuthenticator, projectedTokenExpirationSeconds, serviceAccountTokenAuthenticator, serviceAccountTokenIssuer } from './service-account-token.ts';
export { impersonate, resolveImpersonation, wantsImpersonation } from './impersonation.ts';
export type { AuthorizationAttributes, AuthorizationDecision, Authorizer, Decision } from './authorize.ts';
export { alwaysAllow, alwaysDeny, forbiddenError, unionAuthorizer } from './authorize.ts';
export type { NonResourceRule, ResourceRule, RuleResolver, SubjectRules } from './rule-resolver.ts';
export { isRuleResolver } from './rule-resolver.ts';
export type { RbacSource, RulesReviewStatus } from './rbac.ts';
export { privilegedGroupsAuthorizer, RbacAuthorizer, subjectIndexKeys } from './rbac.ts';
export type { PolicyRule, RoleRef, Subject } from './rbac-rules.ts';
export { ruleAllows } from './rbac-rules.ts';
