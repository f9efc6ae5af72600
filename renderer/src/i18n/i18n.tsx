import { createContext, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { enChat } from './en-chat';
import { enDesk } from './en-desk';
import { enConfig } from './en-config';
import { enDevices } from './en-devices';
import { enRemote } from './en-remote';
import { enMcp } from './en-mcp';
import { enMgmt } from './en-mgmt';
import { enOps } from './en-ops';
import { enCore } from './en';
import { enWeb } from './en-web';
import { zhWeb } from './zh-web';
import { enKnowledge } from './en-knowledge';
import { zhKnowledge } from './zh-knowledge';
import { zhChat } from './zh-chat';
import { zhDesk } from './zh-desk';
import { zhConfig } from './zh-config';
import { zhDevices } from './zh-devices';
import { zhRemote } from './zh-remote';
import { zhMcp } from './zh-mcp';
import { zhMgmt } from './zh-mgmt';
import { zhOps } from './zh-ops';
import { zhCore } from './zh';

const en = {
  ...enCore,
  ...enConfig,
  ...enOps,
  ...enMgmt,
  ...enChat,
  ...enDevices,
  ...enDesk,
  ...enMcp,
  ...enRemote,
  ...enWeb,
  ...enKnowledge,
};
export type MessageKey = keyof typeof en;
export type Locale = 'en' | 'zh';
/** `auto` follows the system's language; a profile's `language` is the assistant's, never the UI's. */
export type LanguageChoice = 'auto' | Locale;

// Every key must exist in Chinese too: a missing translation fails to compile.
const zh: Record<MessageKey, string> = {
  ...zhCore,
  ...zhConfig,
  ...zhOps,
  ...zhMgmt,
  ...zhChat,
  ...zhDevices,
  ...zhDesk,
  ...zhMcp,
  ...zhRemote,
  ...zhWeb,
  ...zhKnowledge,
};
const dictionaries: Record<Locale, Record<MessageKey, string>> = { en, zh };

const CHOICE_KEY = 'service.language';

export type Translate = (key: MessageKey, vars?: Record<string, string | number>) => string;

interface I18n {
  locale: Locale;
  choice: LanguageChoice;
  setChoice(choice: LanguageChoice): void;
  t: Translate;
}

const I18nContext = createContext<I18n | null>(null);

export function systemLocale(): Locale {
  return (navigator.languages?.[0] ?? navigator.language ?? 'en').toLowerCase().startsWith('zh') ? 'zh' : 'en';
}

export function format(template: string, vars?: Record<string, string | number>): string {
  if (!vars) return template;
  return template.replace(/\{(\w+)\}/g, (m, name: string) => (name in vars ? String(vars[name]) : m));
}

export function I18nProvider({ children }: { children: ReactNode }) {
  const [choice, setChoiceState] = useState<LanguageChoice>(() => {
    const stored = localStorage.getItem(CHOICE_KEY);
    return stored === 'en' || stored === 'zh' ? stored : 'auto';
  });
  const locale: Locale = choice !== 'auto' ? choice : systemLocale();

  useEffect(() => {
    document.documentElement.lang = locale === 'zh' ? 'zh-CN' : 'en';
  }, [locale]);

  const value = useMemo<I18n>(() => {
    const dict = dictionaries[locale];
    return {
      locale,
      choice,
      setChoice(next) {
        if (next === 'auto') localStorage.removeItem(CHOICE_KEY);
        else localStorage.setItem(CHOICE_KEY, next);
        setChoiceState(next);
      },
      t: (key, vars) => format(dict[key] ?? en[key], vars),
    };
  }, [locale, choice]);
  return <I18nContext.Provider value={value}>{children}</I18nContext.Provider>;
}

export function useI18n(): I18n {
  const ctx = useContext(I18nContext);
  if (!ctx) throw new Error('useI18n outside I18nProvider');
  return ctx;
}

export function useT(): Translate {
  return useI18n().t;
}
