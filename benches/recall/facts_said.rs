//! The facts said in conversation: the main session, forks and background runs (the table's
//! format is in `facts.rs`).

pub(crate) const SAID: &str = r"
fact 20 main said | Anneke Vos | Finally booked a new dentist: Dr. Anneke Vos at the Elm Street practice. She does longer appointments for nervous patients, which is exactly what I need.
ask one | Who was that dentist I switched to?
agent | dentist switched changed new dentist dental practice registered moved to name
near 6 main said | The dentist sent another reminder letter about my check-up and I still haven't rung them back.
near 150 main said | Maya swears by her dentist on Mill Road, Dr. Patel, but he's private and really pricey.
near 290 main answer | Your dentist check-up is on Thursday at 9:15. I've put it in the calendar with a reminder the evening before.

fact 58 main said | TP1352 | Flight home is TP1352 out of Lisbon on Sunday, it lands at twenty to ten in the evening so I'll need a taxi.
ask none | What time does my plane get in from Portugal?
agent | flight plane Portugal Lisbon Porto Faro return arrival time lands landing gets in
near 40 main said | Looked at flights to Lisbon for March and the prices are silly. Maybe April.
near 200 main said | Chloe's flight lands at Gatwick on Friday evening and I said I'd pick her up, remind me to check the arrivals board.
near 262 bg tool mcp__discord__google_calendar | Fri 09:05 Flight to Berlin (team offsite), lands 12:10 local\nSat 18:00 Dinner with Greta's team
near 310 main said | My flight home for Christmas lands in Manchester at noon, can you remind me to book the train from the airport?
near 330 main said | Jonas's plane got in two hours late from Porto, we ended up eating at the airport.

fact 35 main said | Harwood & Finch | Landlord emailed: the flat is now managed by a letting agency, Harwood & Finch. Repairs go through Dilys there from now on.
ask two | Who's the letting agency for my flat?
agent | letting agency letting agent flat apartment landlord rental tenancy estate agent property management
near 12 main said | Tom's looking at flats and the letting agency wants six weeks' deposit up front, that's outrageous.
near 180 main answer | The letting agency for Tom's new flat on Ash Grove is Castle Lettings; I've added their number to his contact card like you asked.
near 320 main said | Priya's letting agency kept half her deposit for a scuffed wall. Horrible.

fact 75 main said | 4-7-1-9 | The combination for the new bike lock is 4-7-1-9. Writing it here so I stop forgetting it.
ask none | What's the number to open my bicycle padlock?
agent | bike bicycle lock padlock combination code number
near 30 main said | Bike needs new brake pads before I ride to work again.
near 160 main said | The locker at the gym has a number code now, it's printed on the tag so no need to remember it.
near 230 main said | Got a padlock for the shed, a key one this time so there's no code to forget.
near 300 main answer | The bike shop says the gears need a service, £45, and they can do it on Saturday if you drop the bicycle off before ten.

fact 90 main answer | PEX-448-2913 | Your passport renewal went in on 31 March. The Passport Office reference is PEX-448-2913 and they say to allow up to three weeks.
ask two | Did I ever renew my passport, and what's the reference?
agent | passport renewal renew renewed application reference number passport office tracking
near 60 main said | My passport expires in August. Do I need to renew it before the Lisbon trip?
near 200 main said | Dev renewed his passport online and it came in about a week, jealous.
near 280 main said | Is the driving licence renewal the same process as the passport one? The photo is ancient.
near 340 main answer | For your mum's passport renewal the photo booth at the post office works; she'll need the countersignature form too.

fact 130 main answer | 1000 IU | The GP surgery rang back: your blood test was normal apart from low vitamin D, and Dr. Haddad wants you on 1000 IU a day for three months.
ask two | How much vitamin D did the surgery tell me to take?
agent | vitamin D dose dosage IU micrograms GP surgery doctor supplement take daily
near 62 main said | Bought vitamin D gummies at Boots because it's so dark all the time.
near 182 main said | Priya says her GP put her on iron tablets after her blood test.
near 300 main answer | The surgery wants another blood test in December, fasting from midnight; I've added it as a task.
near 341 main said | Ran out of vitamin D, add it to the shopping list please.

fact 140 main said | Clay Corner | For mum's birthday I'm getting her the pottery class at Clay Corner, the Saturday morning one she kept hinting about.
ask one | What did I decide to give my mother for her birthday?
agent | mum mother mom birthday present gift idea decided buy give
near 100 main said | Dad's birthday present sorted: the book about canals. He'll love it.
near 210 main said | Maya's birthday drinks are on Friday at the Crown, I should bring something small.
near 322 main said | Mum's birthday card is in the kitchen drawer, remind me to post it on Monday.
near 350 main said | Christmas present for mum: the green scarf from the market.

fact 160 main answer | Kwik Lane Garage | The car's MOT is booked at Kwik Lane Garage for 9 August with an 8:30 drop-off, and they'll do the service at the same time.
ask two | Where's the car going for its MOT?
agent | MOT car garage test booked booking mechanic service
near 31 main said | Car insurance renewal came through, forty quid more than last year for no reason.
near 120 main said | Tom says his garage is good for the MOT but it's across town.
near 250 main said | The car makes a clicking noise when I turn left, is that bad?
near 333 main answer | The car's parking permit needs renewing in January; I've set a reminder for the 5th.
near 345 main said | Maya's car failed its MOT on the tyres, she's furious.

fact 190 main said | GYM-77310 | Cancelled the gym membership today. The last payment goes out on 1 August and the cancellation reference is GYM-77310.
ask two | When's the final payment for the gym I quit?
agent | gym membership cancel cancelled quit final last payment direct debit notice period
near 41 main said | The gym was packed, I left after twenty minutes.
near 151 main said | The gym membership went up to £38 a month, is it even worth it?
near 252 main said | Thinking of joining the climbing gym with Dev, the first session is free.
near 331 main answer | The payment for the phone bill bounced; I'd move it to the 3rd, after payday.

fact 205 main said | Okonkwo | Gave the spare key to Mrs. Okonkwo at number 14, she's home most days if I lock myself out again.
ask one | Who did I leave the extra door key with?
agent | spare key extra door key left with neighbour friend copy house keys
near 61 main said | Lost my keys again. They were in the fridge. I wish I was joking.
near 152 main said | The key for the bike shed is on the blue keyring, not the red one.
near 281 main said | Nora has a spare key to Maya's for feeding the cat while she's away.
near 342 main answer | The landlord wants a copy of the new door key; the key cutting place at the market does it while you wait.

fact 250 main said | called Wren | Priya had the baby! A little girl called Wren, 3.2 kilos, and everyone's doing fine.
ask one | What did Priya name her daughter?
agent | Priya baby daughter girl born birth name named
near 101 main said | Priya's baby shower is on the 12th, what do you even bring to those?
near 201 main said | Priya's due date is early September, remind me to send something.
near 301 main said | Send Priya a card and the little knitted hat, I keep forgetting.
near 323 main said | Sam's new puppy is called Biscuit and he is perfect.
near 334 main answer | Priya's daughter has her first jabs at eight weeks, she said, so maybe wait a bit before visiting with that cold.

fact 95 main answer | room 4.12 | Your performance review with Greta has moved to 22 April at 2pm, room 4.12 on the fourth floor.
ask one | Which room is my appraisal in?
agent | appraisal performance review annual review meeting room location
near 63 main said | Performance review prep: I need to list my wins and I can't remember any.
near 202 main answer | The sprint review is in room 3.08 at eleven; bring the slide deck on your laptop.
near 302 main said | Greta moved the review meeting again. Third time.
near 343 main said | Booked a room for the team offsite planning, the big one with the whiteboard.

fact 215 main said | Adeyemi | The parcel with the new lamp got left with the neighbour at number 9, Mr. Adeyemi, I'll grab it tonight.
ask none | Where did my delivery end up?
agent | delivery parcel package delivered left with neighbour safe place courier tracking
near 102 main said | The parcel from IKEA is stuck at the depot, tracking hasn't moved in three days.
near 170 main said | Amazon says the parcel was delivered but there's nothing here.
near 303 main said | The neighbour at number 12 is having a party, earplugs tonight.
near 351 main said | The delivery with the Christmas presents comes Tuesday between eight and six.

fact 45 main said | 36 mg | Psychiatrist upped the methylphenidate to 36 mg in the mornings, review in six weeks.
ask none | What dose is my ADHD medication at now?
agent | ADHD medication dose mg dosage increased titration methylphenidate lisdexamfetamine Elvanse Concerta Ritalin prescription
near 21 main said | The prescription for my meds ran out and the pharmacy needs two days.
near 103 main said | Pharmacy has no stock of my meds again, trying the one by the station.
near 251 main said | Got the psychiatrist follow-up letter, nothing new.
near 332 main said | There's news about another ADHD medication shortage, should I order early?

fact 285 main said | Fringe Benefits | Haircut with Rosa at Fringe Benefits every eight weeks, the next one's booked for 2 December.
ask none | What's the name of the salon I go to?
agent | salon hairdresser hair barber haircut nails beauty salon name
near 51 main said | I badly need a haircut, I look like a sheepdog.
near 153 main said | Maya's salon does colour too, she says it's good value.
near 304 main said | The haircut was fine. Not great. Fine.
near 344 main said | Ben cut his own hair during the lockdown years and it shows.

fact 155 main said | Lent Felix £80 | Lent Felix £80 for the festival ticket, he'll pay me back after payday.
ask one | How much money does Felix owe me?
agent | Felix owes me money lent borrowed pay back repay debt
near 64 main said | Felix is thinking of going to a festival this summer, it sounds expensive.
near 203 main said | Felix paid me back for the pizza, finally.
near 253 main said | I owe Sam £15 for the cinema, remind me.
near 335 main said | Felix is coming over on Sunday to borrow the drill.

fact 60 main answer | Stanmer House | Ruth and Kofi's wedding is on 18 July at Stanmer House. Dress code is garden party, RSVP by 1 May.
ask one | Where is the ceremony for Ruth's marriage?
agent | Ruth wedding ceremony venue location church married marriage
near 104 main said | Wedding gift ideas for Ruth and Kofi? They have everything.
near 204 main said | Ben's cousin's wedding is the same weekend, I can't do both.
near 305 main said | Ruth sent the wedding photos, I look awful in all of them.
near 346 main said | Ruth asked if I'd do a reading at her sister's ceremony next spring.

fact 340 main said | year grandad was born | New debit card PIN is the year grandad was born, so I never have to write the digits down anywhere.
ask two | What did I pick for my card PIN?
agent | card PIN number bank debit credit card chose new PIN code
near 52 main said | My bank card expired and the new one hasn't come.
near 105 main said | The credit card bill is higher than I thought, I need to look at it properly.
near 291 main said | The phone asked for the SIM PIN after the update and I had to dig out the little card it came on.
near 355 main said | The card reader at the corner shop ate my card. Great.
near 360 main answer | The library card PIN is the last four digits of your phone number, the librarian said.

fact 110 fork said | Sutherland | Pickle's vaccinations are with the vet at Greenbank, Dr. Sutherland, and her booster is due every April.
ask none | Which animal doctor gives the cat her jabs?
agent | vet veterinary cat vaccinations jabs booster injections vet practice clinic
near 53 main said | Pickle threw up again. If it happens twice more I'm taking her to the vet.
near 141 main said | The vet bill was £86 for the ear drops. Cats are expensive.
near 270 main said | Lena's dog needs his jabs before the kennel will take him.
near 352 fork said | Pickle's flea treatment is due; the vet sells it cheaper than the pet shop does.

fact 170 fork answer | The Remains of the Day | Book club's next pick is The Remains of the Day; the discussion is at Nora's on the 3rd.
ask none | Which novel are we reading for the reading group?
agent | book club reading group novel book reading this month
near 80 main said | Book club was fun, nobody had finished Piranesi though.
near 220 main said | Nora wants the book club to meet every six weeks instead of monthly.
near 306 main said | Finished Circe, five stars, the best thing I've read this year.
near 347 fork answer | The reading list you made for winter: Circe, Klara and the Sun, and the Overstory; Klara is the shortest if you want a quick win.

fact 180 fork said | Banshees of Inisherin | Dev says I have to watch The Banshees of Inisherin, same director as In Bruges apparently.
ask one | Which movie did Dev tell me to see?
agent | Dev film movie recommended recommendation watch see
near 106 main said | Watched Past Lives last night and cried for an hour.
near 205 main said | Dev's band is playing on Saturday at the Lexington.
near 292 main said | Film night at Maya's: Paddington 2 again, no complaints.
near 336 main said | Dev recommended a podcast about sleep, can you add it to my list?
near 353 fork said | Which movie should we see on Boxing Day, something light?

fact 270 fork answer | DataCamp Leeds | Good news in the inbox: your talk proposal for DataCamp Leeds was accepted, 25 minutes on 14 November, the slot after lunch.
ask one | Which conference said yes to my talk?
agent | conference talk accepted acceptance proposal CFP submission speaker approved
near 206 main said | Conference tickets are so expensive, work won't pay this year.
near 241 main said | Started drafting a talk proposal about spreadsheets, it's either great or awful.
near 307 main said | Greta's talk went really well, I should tell her.
near 337 main answer | The conference in Berlin next spring has its call for talks open until February.

fact 345 fork said | 10:07 from Piccadilly | Christmas is at dad's this year; I'm bringing the trifle and taking the 10:07 from Piccadilly.
ask none | What am I making for the holiday dinner at my father's?
agent | dad father Christmas holiday dinner cooking making bring dish recipe
near 207 main said | The Christmas markets open next week, Maya wants to go.
near 308 main said | Dad's fence blew down in the storm, he wants help on Saturday.
near 356 main said | Christmas dinner at Maya's on the 27th, I'm on roast potatoes.
near 358 main answer | Trains on the 24th are busy; the 11:30 from Piccadilly has seats left if you want a backup.
near 361 main said | Holiday dinner leftovers for days, I'm not cooking until New Year.

fact 240 bg tool mcp__discord__gmail | BW-5520187 | From: Brightwave Energy. Welcome aboard! Your switch completes on 12 September. Customer number BW-5520187. Your monthly direct debit will be £64.
ask one | What's my account number with the new power company?
agent | energy supplier electricity gas account number new power company switched provider
near 22 main said | The electricity bill is huge this month, I'm scared to open it.
near 208 main said | Should I compare energy suppliers? Apparently fixed deals are back.
near 293 main said | The water company account number is on the letter in the blue folder.
near 338 bg answer | The meter reading for the electricity is due this week; the supplier's app has the form.
near 354 main said | The internet provider wants my account number to fix the line, where would that be?

fact 300 bg answer | Drip Doctors | Logged for the flat: the plumber who fixed the leak under the sink was Gethin from Drip Doctors, invoice £120, paid.
ask one | Who came to sort out the water under the kitchen sink?
agent | plumber leak kitchen sink water leaking pipe repair came fixed
near 54 main said | The kitchen tap is dripping again, it kept me up.
near 154 main said | Landlord says the plumber can come Tuesday between nine and one.
near 339 main said | Bathroom sink is blocked, hair again, gross.
near 357 main answer | The plumber's quote for the shower is £300; the letting agency has to approve anything over £250.

fact 150 bg answer | The Body Keeps the Score | Library check done: The Body Keeps the Score is due back on 3 June and can't be renewed again because someone has a hold on it.
ask two | When is my library book due?
agent | library book due date return renew loan overdue
near 65 main said | My library card expired, apparently you have to renew it in person.
near 209 main said | Returned all the library books, no fines for once.
near 282 main said | The library has a new quiet study room you can book.
near 324 bg answer | Library check: nothing due this week, and the hold on Four Thousand Weeks is ready to collect.
near 348 main said | Book sale at the library on Saturday, stop me buying twenty.

fact 195 bg tool mcp__discord__gmail | BLK-44-0912 | From: City Council. Bulky waste collection confirmed for 22 July, booking reference BLK-44-0912. Items: old mattress, desk chair. Put them out by 7am.
ask two | When are they coming to take away the old mattress?
agent | old mattress collection pick up removal bulky waste council collect date
near 66 main said | The new mattress is amazing, why did I wait so long.
near 156 main said | The council only collects garden waste every other week now.
near 294 main said | Tom's giving away a desk chair if anyone wants it.
near 349 main said | The old sofa could go to the charity shop, they collect for free.

fact 320 bg said | 4418 22 9087 | [reminder-bg:c4a1e9f2] Car tax runs out on 30 November: nudge them to renew it on the DVLA site with the V5C reference 4418 22 9087.
ask two | When does the road tax on the car expire?
agent | car tax road tax vehicle tax VED expiry expires renewal due DVLA
near 91 main said | Council tax went up again this April.
near 211 main said | Does the car need tax if it's parked off the road? Asking for Tom.
near 359 main said | Tom's van tax runs out the same week as mine, funny.
near 362 main answer | The road tax reminder from the DVLA comes as a V11 letter; yours should arrive soon.
";
