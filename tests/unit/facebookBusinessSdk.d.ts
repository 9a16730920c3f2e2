/** The part of Meta's business SDK the match-key tests use as their oracle (the package ships no types). */
declare module 'facebook-nodejs-business-sdk' {
  export class UserData {
    setEmail(value: string): UserData;
    setPhone(value: string): UserData;
    setFirstName(value: string): UserData;
    setLastName(value: string): UserData;
    setCity(value: string): UserData;
    setState(value: string): UserData;
    setZip(value: string): UserData;
    setCountry(value: string): UserData;
    setDateOfBirth(value: string): UserData;
    setGender(value: string): UserData;
    normalize(): Record<string, unknown>;
  }
}
