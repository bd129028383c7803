// What a user may do in a namespace, as a list of rules (upstream's authorizer.RuleResolver):
// the answer of a SelfSubjectRulesReview and of `kubectl auth can-i --list`.
import type { UserInfo } from './user.ts';

/** authorization.k8s.io/v1 ResourceRule. */
export interface ResourceRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
}

/** authorization.k8s.io/v1 NonResourceRule. */
export interface NonResourceRule {
  verbs: string[];
  nonResourceURLs?: string[];
}

/** The rules of a user, in the shape of authorization.k8s.io/v1 SubjectRulesReviewStatus. */
export interface SubjectRules {
  resourceRules: ResourceRule[];
  nonResourceRules: NonResourceRule[];
  /** The mode cannot list everything it would allow (a webhook, a mode with no rules to show). */
  incomplete: boolean;
  evaluationError?: string;
}

/** An authorization mode that can list a user's rules. */
export interface RuleResolver {
  rulesFor(user: UserInfo, namespace: string): Promise<SubjectRules>;
}

/** Whether `authorizer` can list rules. */
export function isRuleResolver(authorizer: object): authorizer is RuleResolver {
  return typeof (authorizer as Partial<RuleResolver>).rulesFor === 'function';
}
