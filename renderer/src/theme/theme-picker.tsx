import { useId } from 'react';
import { useT } from '../i18n/i18n';
import { useTheme, type ThemeChoice } from './theme';

export function ThemePicker() {
  const t = useT();
  const { choice, setChoice } = useTheme();
  const id = useId();
  return (
    <div className="lang-picker">
      <label htmlFor={id}>{t('theme.label')}</label>
      <select id={id} value={choice} onChange={(e) => setChoice(e.target.value as ThemeChoice)}>
        <option value="system">{t('theme.system')}</option>
        <option value="light">{t('theme.light')}</option>
        <option value="dark">{t('theme.dark')}</option>
      </select>
    </div>
  );
}
