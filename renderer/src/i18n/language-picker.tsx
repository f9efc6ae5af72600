import { useId } from 'react';
import { useI18n, type LanguageChoice } from './i18n';

export function LanguagePicker() {
  const { t, choice, setChoice } = useI18n();
  const id = useId();
  return (
    <div className="lang-picker">
      <label htmlFor={id}>{t('lang.label')}</label>
      <select id={id} value={choice} onChange={(e) => setChoice(e.target.value as LanguageChoice)}>
        <option value="auto">{t('lang.auto')}</option>
        <option value="en">English</option>
        <option value="zh">中文</option>
      </select>
    </div>
  );
}
