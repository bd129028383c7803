// What other folders import from auth/.
export type { UserInfo } from './user.ts';
export { ensureAdminToken, parseTokenFile } from './token-file.ts';
export type { Authenticator } from './authenticate.ts';
export { bearerAuthenticator, bearerToken } from './authenticate.ts';
export type { AuthorizationAttributes, AuthorizationDecision, Authorizer, Decision } from './authorize.ts';
export { alwaysAllow, alwaysDeny, forbiddenError, unionAuthorizer } from './authorize.ts';
export type { NonResourceRule, ResourceRule, RuleResolver, SubjectRules } from './rule-resolver.ts';
export { isRuleResolver } from './rule-resolver.ts';
export type { RbacSource, RulesReviewStatus } from './rbac.ts';
export { privilegedGroupsAuthorizer, RbacAuthorizer, subjectIndexKeys } from './rbac.ts';
export type { PolicyRule, RoleRef, Subject } from './rbac-rules.ts';
export { ruleAllows } from './rbac-rules.ts';
